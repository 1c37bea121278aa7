package chain

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/gagliardetto/solana-go"
	computebudget "github.com/gagliardetto/solana-go/programs/compute-budget"
)

// tokenAccountData returns SPL token account bytes: mint, owner, amount,
// initialized; extra bytes model Token-2022 extensions (AccountType 2).
func tokenAccountData(mint, owner solana.PublicKey, amount uint64, extra int) []byte {
	d := make([]byte, tokenAccountLen+extra)
	copy(d[tokenMintOffset:], mint[:])
	copy(d[tokenOwnerOffset:], owner[:])
	binary.LittleEndian.PutUint64(d[tokenAmountOffset:], amount)
	d[tokenStateOffset] = 1
	if extra > 0 {
		d[token2022TypeOffset] = token2022TypeAcct
	}
	return d
}

// simFixture is a wallet with token accounts referenced by a transaction.
type simFixture struct {
	fc                       *fakeChain
	c                        *Client
	wallet                   solana.PrivateKey
	mintM, mintN             solana.PublicKey
	ta, t22, stranger, table solana.PublicKey
	viaTable                 solana.PublicKey
}

func newSimFixture(t testing.TB) *simFixture {
	f := &simFixture{fc: newFakeChain(150), wallet: newKey(t)}
	f.c, _ = newMemClient(t, f.fc, nil)
	w := f.wallet.PublicKey()
	f.mintM, f.mintN = solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	f.ta, f.t22, f.stranger = solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	f.table, f.viaTable = solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	tok, tok22 := solana.TokenProgramID, solana.Token2022ProgramID
	f.fc.accounts = map[solana.PublicKey]*Account{
		w:          {Lamports: 10_000_000},
		f.ta:       {Lamports: 2_039_280, Owner: tok, Data: tokenAccountData(f.mintM, w, 1000, 0)},
		f.t22:      {Lamports: 2_074_080, Owner: tok22, Data: tokenAccountData(f.mintN, w, 50, 5)},
		f.stranger: {Lamports: 2_039_280, Owner: tok, Data: tokenAccountData(f.mintM, solana.NewWallet().PublicKey(), 7, 0)},
		f.mintM:    {Lamports: 1_461_600, Owner: tok, Data: make([]byte, 82)},
		f.viaTable: {Lamports: 2_039_280, Owner: tok, Data: tokenAccountData(f.mintM, w, 300, 0)},
		f.table: {Lamports: 1, Owner: solana.AddressLookupTableProgramID,
			Data: slices.Concat(make([]byte, lookupTableHeaderLen), solana.NewWallet().PublicKey().Bytes(), f.viaTable.Bytes())},
	}
	f.fc.post = map[solana.PublicKey]*Account{
		w:          {Lamports: 8_993_000}, // 1,000,000 spent and the 7,000 fee charged
		f.ta:       {Lamports: 2_039_280, Owner: tok, Data: tokenAccountData(f.mintM, w, 400, 0)},
		f.viaTable: {Lamports: 2_039_280, Owner: tok, Data: tokenAccountData(f.mintM, w, 100, 0)},
		// t22 closed: absent after
	}
	return f
}

// tx returns the wire form keeper simulates (the wallet's signature slot
// zero) of a transaction setting a 200k unit limit at 10,000 micro-lamports
// and touching every fixture account; withTable loads viaTable through the
// lookup table (v0).
func (f *simFixture) tx(t testing.TB, withTable bool) []byte {
	return walletSlotZeroed(f.signed(t, withTable).Raw)
}

// signed is tx signed by the wallet.
func (f *simFixture) signed(t testing.TB, withTable bool) Signed {
	ixs := []solana.Instruction{
		computebudget.NewSetComputeUnitLimitInstruction(200_000).Build(),
		computebudget.NewSetComputeUnitPriceInstruction(10_000).Build(),
	}
	metas := solana.AccountMetaSlice{
		solana.Meta(f.ta).WRITE(), solana.Meta(f.t22).WRITE(), solana.Meta(f.stranger).WRITE(), solana.Meta(f.mintM),
	}
	var opts []solana.TransactionOption
	if withTable {
		metas = append(metas, solana.Meta(f.viaTable).WRITE())
		tbl := f.fc.accounts[f.table].Data[lookupTableHeaderLen:]
		opts = append(opts, solana.TransactionAddressTables(map[solana.PublicKey]solana.PublicKeySlice{
			f.table: {solana.PublicKeyFromBytes(tbl[:32]), f.viaTable},
		}))
	}
	ixs = append(ixs, solana.NewInstruction(solana.NewWallet().PublicKey(), metas, []byte{1}))
	return signTx(t, ixs, f.wallet, f.fc.newBlockhash(), opts...)
}

func TestSimulateOutflows(t *testing.T) {
	tests := []struct {
		name      string
		withTable bool
		balances  bool // the node returns balances with simulations
		wantM     int64
		wantAddrs int
	}{
		{"static keys", false, false, 600, 3},
		{"lookup table entry counted", true, false, 800, 4},
		{"balances, static keys", false, true, 600, 0},
		{"balances, lookup table entry counted", true, true, 800, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newSimFixture(t)
			f.fc.simBalances = tt.balances
			raw := f.tx(t, tt.withTable)
			if tx, _ := decodeTx(raw); (len(tx.Message.AddressTableLookups) == 1) != tt.withTable {
				t.Fatalf("lookups %v, want a lookup table: %v", tx.Message.AddressTableLookups, tt.withTable)
			}
			res, err := f.c.Simulate(t.Context(), raw, f.wallet.PublicKey())
			if err != nil {
				t.Fatalf("Simulate: %v", err)
			}
			// 1,000,000 spent + 5,000 base + ceil(200,000 × 10,000 / 1e6) = 2,000 priority.
			if res.Outflows.Lamports != 1_007_000 || res.Fee.Base != 5000 || res.Fee.Priority != 2000 {
				t.Errorf("lamports %d fee %+v, want 1,007,000 with 5,000 + 2,000", res.Outflows.Lamports, res.Fee)
			}
			want := map[solana.PublicKey]int64{f.mintM: tt.wantM, f.mintN: 50}
			if len(res.Outflows.Tokens) != 2 || res.Outflows.Tokens[f.mintM] != want[f.mintM] || res.Outflows.Tokens[f.mintN] != 50 {
				t.Errorf("token outflows %v, want %v", res.Outflows.Tokens, want)
			}
			if res.UnitsConsumed != 4321 {
				t.Errorf("units %d, want 4321", res.UnitsConsumed)
			}
			calls := f.fc.callsOf("simulateTransaction")
			if tt.balances {
				// One request: the balances come with the simulation.
				if len(calls) != 1 || len(f.fc.callsOf("getMultipleAccounts")) != 0 || calls[0].params[1].(map[string]any)["accounts"] != nil {
					t.Fatalf("%d simulate calls, %d account reads, config %v; want one simulation alone",
						len(calls), len(f.fc.callsOf("getMultipleAccounts")), calls[0].params[1])
				}
				return
			}
			// The first simulation finds no balances; the second is measured
			// against the accounts read around it.
			if len(calls) != 2 {
				t.Fatalf("%d simulate calls, want 2", len(calls))
			}
			o := calls[1].params[1].(map[string]any)
			acc := o["accounts"].(map[string]any)
			addrs := acc["addresses"].([]any)
			if o["sigVerify"] != false || o["commitment"] != "confirmed" || o["replaceRecentBlockhash"] != false || acc["encoding"] != "base64" {
				t.Errorf("simulate options %v", o)
			}
			if len(addrs) != tt.wantAddrs || addrs[0] != f.wallet.PublicKey().String() || addrs[1] != f.ta.String() || addrs[2] != f.t22.String() {
				t.Errorf("watched %v, want the wallet, then its token accounts only", addrs)
			}
		})
	}
}

func TestSimulateFailure(t *testing.T) {
	tests := []struct {
		name      string
		err       any
		retryable bool
	}{
		{"program error", map[string]any{"InstructionError": []any{2, map[string]any{"Custom": 1}}}, false},
		{"blockhash not found", "BlockhashNotFound", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newSimFixture(t)
			f.fc.simErr, f.fc.simLogs = tt.err, []string{"Program X invoke [1]", "Program X failed: custom program error: 0x1"}
			res, err := f.c.Simulate(t.Context(), f.tx(t, false), f.wallet.PublicKey())
			var se *SimError
			if !errors.As(err, &se) || len(se.Logs) != 2 || errJSON(se.Err) != errJSON(tt.err) {
				t.Fatalf("err = %v, want a SimError with the logs", err)
			}
			if res == nil || len(res.Logs) != 2 || res.UnitsConsumed != 4321 || res.Outflows.Tokens != nil {
				t.Errorf("result %+v, want logs and units, no outflows", res)
			}
			if Retryable(err) != tt.retryable {
				t.Errorf("Retryable = %v, want %v", !tt.retryable, tt.retryable)
			}
			if !contains(err.Error(), "custom program error") {
				t.Errorf("error %q does not show the last log line", err)
			}
		})
	}
}

func TestDecodeTokenAccount(t *testing.T) {
	mint, owner := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	base := tokenAccountData(mint, owner, 42, 0)
	ext := tokenAccountData(mint, owner, 42, 10)
	mintLike := slices.Clone(ext)
	mintLike[token2022TypeOffset] = 1
	uninit := slices.Clone(base)
	uninit[tokenStateOffset] = 0
	tests := []struct {
		name string
		acc  *Account
		ok   bool
	}{
		{"token", &Account{Owner: solana.TokenProgramID, Data: base}, true},
		{"token-2022 base", &Account{Owner: solana.Token2022ProgramID, Data: base}, true},
		{"token-2022 with extensions", &Account{Owner: solana.Token2022ProgramID, Data: ext}, true},
		{"token-2022 mint with extensions", &Account{Owner: solana.Token2022ProgramID, Data: mintLike}, false},
		{"token program, wrong length", &Account{Owner: solana.TokenProgramID, Data: ext}, false},
		{"other program", &Account{Owner: solana.SystemProgramID, Data: base}, false},
		{"uninitialized", &Account{Owner: solana.TokenProgramID, Data: uninit}, false},
		{"short", &Account{Owner: solana.TokenProgramID, Data: base[:100]}, false},
		{"missing", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := decodeTokenAccount(tt.acc)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if ok && (got.Mint != mint || got.Owner != owner || got.Amount != 42) {
				t.Errorf("decoded %+v", got)
			}
		})
	}
}

func TestFeeOf(t *testing.T) {
	key := newKey(t)
	other := solana.NewWallet().PublicKey()
	prog := solana.NewInstruction(solana.NewWallet().PublicKey(), solana.AccountMetaSlice{solana.Meta(other).WRITE()}, []byte{0})
	limit := computebudget.NewSetComputeUnitLimitInstruction(300_000).Build()
	price := computebudget.NewSetComputeUnitPriceInstruction(1_000_001).Build()
	huge := computebudget.NewSetComputeUnitLimitInstruction(2_000_000).Build()
	tests := []struct {
		name     string
		ixs      []solana.Instruction
		priority uint64
	}{
		{"no compute budget", []solana.Instruction{prog}, 0},
		{"limit and price", []solana.Instruction{limit, price, prog}, 300_001}, // ceil(300,000 × 1,000,001 / 1e6)
		{"price only: 200k default per instruction", []solana.Instruction{price, prog, prog}, 400_001},
		{"limit above the ceiling is capped", []solana.Instruction{huge, price, prog}, 1_400_002},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := signTx(t, tt.ixs, key, solana.Hash{1})
			tx, err := decodeTx(s.Raw)
			if err != nil {
				t.Fatal(err)
			}
			f, err := MessageFee(tx.Message)
			if err != nil {
				t.Fatalf("MessageFee: %v", err)
			}
			if f.Base != 5000 || f.Priority != tt.priority || f.Payer != key.PublicKey() || f.Total() != 5000+tt.priority {
				t.Errorf("fee %+v, want base 5000 priority %d", f, tt.priority)
			}
		})
	}
}

// BenchmarkSimulate measures keeper's side of one Simulate (decode, fee,
// three JSON-RPC round trips served in memory, outflows) for a transaction
// touching five accounts.
func BenchmarkSimulate(b *testing.B) {
	f := newSimFixture(b)
	f.c, _ = newMemClient(b, f.fc, func(o *Options) { o.RateLimit = math.Inf(1) })
	raw := f.tx(b, false)
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.c.Simulate(ctx, raw, f.wallet.PublicKey()); err != nil {
			b.Fatal(err)
		}
	}
}
