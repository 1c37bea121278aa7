package chainsim

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

func TestSimulateReturnsPostStateAndChangesNothing(t *testing.T) {
	f := newTokenFixture(t)
	cl := rpcClient(t, f.c)
	ctx := context.Background()
	carol := newKey("carol").PublicKey()
	tx := signTx(t, []solana.Instruction{
		system.NewTransferInstruction(1000, f.alice.PublicKey(), carol).Build(),
		token.NewTransferInstruction(300, f.aliceATA, f.bobATA, f.alice.PublicKey(), nil).Build(),
	}, latest(f.c), f.alice)
	out, err := cl.SimulateTransactionWithOpts(ctx, tx, &rpc.SimulateTransactionOpts{
		SigVerify:  true,
		Commitment: rpc.CommitmentProcessed,
		Accounts:   &rpc.SimulateTransactionAccountsOpts{Encoding: solana.EncodingBase64, Addresses: []solana.PublicKey{f.alice.PublicKey(), carol, f.bobATA, newKey("nobody").PublicKey()}},
	})
	if err != nil {
		t.Fatalf("SimulateTransaction: %v", err)
	}
	v := out.Value
	if v.Err != nil || v.UnitsConsumed == nil || *v.UnitsConsumed != svm.SystemUnits+4644 || len(v.Logs) != 6 {
		t.Fatalf("simulation = err %v, units %v, logs %q", v.Err, v.UnitsConsumed, v.Logs)
	}
	if len(v.Accounts) != 4 || v.Accounts[3] != nil {
		t.Fatalf("accounts = %+v, want 4 with the last null", v.Accounts)
	}
	if got, want := v.Accounts[0].Lamports, f.aliceLamportsStart-1000-5000; got != want {
		t.Errorf("alice post-state = %d, want %d (the fee already deducted, as Agave returns it)", got, want)
	}
	if got := v.Accounts[1].Lamports; got != 1000 {
		t.Errorf("carol post-state = %d, want 1000", got)
	}
	if ta, ok := svm.DecodeTokenAccount(v.Accounts[2].Data.GetBinary()); !ok || ta.Amount != 300 || v.Accounts[2].Owner != solana.TokenProgramID {
		t.Errorf("bob's token account post-state = %+v", v.Accounts[2])
	}
	if f.c.State.Balance(carol) != 0 || f.c.State.TokenBalance(f.bob.PublicKey(), f.mint) != 0 || f.c.State.Balance(f.alice.PublicKey()) != f.aliceLamportsStart {
		t.Fatalf("simulation changed state")
	}
	if _, err := cl.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentProcessed}); err != nil {
		t.Fatalf("send after simulate: %v", err)
	}
}

func TestSimulateOptions(t *testing.T) {
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	unknown := solana.Hash{1, 2, 3}
	tests := []struct {
		name     string
		hash     func(c *Chain) solana.Hash
		mangle   bool
		opts     rpc.SimulateTransactionOpts
		wantCode int // JSON-RPC error code, 0 for none
		wantErr  any // simulation err
	}{
		{"valid", latest, false, rpc.SimulateTransactionOpts{Commitment: rpc.CommitmentProcessed}, 0, nil},
		{"unknown blockhash", func(*Chain) solana.Hash { return unknown }, false, rpc.SimulateTransactionOpts{Commitment: rpc.CommitmentProcessed}, 0, "BlockhashNotFound"},
		{"unknown blockhash replaced", func(*Chain) solana.Hash { return unknown }, false, rpc.SimulateTransactionOpts{ReplaceRecentBlockhash: true}, 0, nil},
		{"bad signature without sigVerify", latest, true, rpc.SimulateTransactionOpts{Commitment: rpc.CommitmentProcessed}, 0, nil},
		{"bad signature with sigVerify", latest, true, rpc.SimulateTransactionOpts{SigVerify: true, Commitment: rpc.CommitmentProcessed}, -32003, nil},
		{"sigVerify with replaceRecentBlockhash", latest, false, rpc.SimulateTransactionOpts{SigVerify: true, ReplaceRecentBlockhash: true}, -32602, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newChain(t, Options{})
			cl := rpcClient(t, c)
			mustFund(t, c, alice.PublicKey(), 1_000_000)
			tx := transfer(t, alice, bob, 1000, tt.hash(c))
			if tt.mangle {
				tx.Signatures[0][0] ^= 1
			}
			out, err := cl.SimulateTransactionWithOpts(context.Background(), tx, &tt.opts)
			if tt.wantCode != 0 {
				if rerr := rpcErr(t, err); rerr.Code != tt.wantCode {
					t.Fatalf("code = %d (%s), want %d", rerr.Code, rerr.Message, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatalf("simulate: %v", err)
			}
			if !jsonEqual(t, out.Value.Err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", out.Value.Err, tt.wantErr)
			}
		})
	}
}

// TestSimulateRefusesMoreAccountsThanKeys asks for the post-state of more accounts than the
// transaction names, which agave refuses ("Too many accounts provided; max N"), and of exactly as
// many, which it serves.
func TestSimulateRefusesMoreAccountsThanKeys(t *testing.T) {
	c, _ := newChain(t, Options{})
	cl := rpcClient(t, c)
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	tx := transfer(t, alice, bob, 5, latest(c)) // alice, bob and the system program
	keys := []solana.PublicKey{alice.PublicKey(), bob, solana.SystemProgramID}
	ask := func(addrs []solana.PublicKey) error {
		_, err := cl.SimulateRawTransactionWithOpts(t.Context(), raw(t, tx), &rpc.SimulateTransactionOpts{
			SigVerify: true, Commitment: rpc.CommitmentProcessed,
			Accounts: &rpc.SimulateTransactionAccountsOpts{Encoding: solana.EncodingBase64, Addresses: addrs}})
		return err
	}
	if err := ask(keys); err != nil {
		t.Fatalf("as many accounts as keys: %v", err)
	}
	err := ask(append(keys, newKey("carol").PublicKey()))
	if rerr := rpcErr(t, err); rerr.Code != -32602 || !strings.HasSuffix(rerr.Message, "Too many accounts provided; max 3") {
		t.Errorf("one account too many: %+v, want -32602 Too many accounts provided; max 3", rerr)
	}
}

// TestSimulateUnsignedAsSigned: a transaction whose fee payer's signature
// slot is all zero, as keeper simulates before it signs, is refused with
// sigVerify (as Agave's simulate_transaction verifies then) and without it
// runs exactly as the signed one does: same fee, balances, logs, units and
// post-state. Once the signed one landed, its unsigned copy is already
// processed: the status cache knows a transaction by its message.
func TestSimulateUnsignedAsSigned(t *testing.T) {
	c, clk := newChain(t, Options{})
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	advanceSlots(clk, 1)
	signed := raw(t, transfer(t, alice, bob, 1000, latest(c)))
	unsigned := append([]byte{}, signed...)
	clear(unsigned[1:65])
	accts := []solana.PublicKey{alice.PublicKey(), bob}
	if _, err := c.Simulate(unsigned, SimulateOptions{SigVerify: true, Accounts: accts}); !errors.Is(err, svm.ErrSignatureFailure) {
		t.Fatalf("unsigned with sigVerify: %v, want a signature failure", err)
	}
	want, err := c.Simulate(signed, SimulateOptions{SigVerify: true, Accounts: accts})
	if err != nil || want.Err != nil {
		t.Fatalf("signed: %v %v", err, want.Err)
	}
	got, err := c.Simulate(unsigned, SimulateOptions{Accounts: accts})
	if err != nil || got.Err != nil {
		t.Fatalf("unsigned without sigVerify: %v %v", err, got.Err)
	}
	if got.Fee != want.Fee || got.Fee != 5000 || got.UnitsConsumed != want.UnitsConsumed || !slices.Equal(got.Logs, want.Logs) ||
		!reflect.DeepEqual(got.Balances, want.Balances) || !reflect.DeepEqual(got.Accounts, want.Accounts) {
		t.Fatalf("unsigned %+v\nsigned   %+v", got, want)
	}
	if _, err := c.SendTransaction(signed); err != nil {
		t.Fatal(err)
	}
	again, err := c.Simulate(unsigned, SimulateOptions{})
	if err != nil || again.Err == nil || !errors.Is(again.Err, svm.ErrAlreadyProcessed) {
		t.Fatalf("unsigned copy of a landed transaction: %v %v, want AlreadyProcessed", err, again.Err)
	}
}

// TestSimulateRunsOnTheBankOfItsCommitment funds a wallet in the newest block and simulates a
// transfer that only the newest funds pay for: as Agave simulates on the bank of the commitment
// asked, it succeeds at processed and fails at confirmed and finalized until their blocks have seen
// the funding, and the post-state is that bank's balance less the transfer and the fee.
func TestSimulateRunsOnTheBankOfItsCommitment(t *testing.T) {
	c, clk := newChain(t, Options{})
	cl := rpcClient(t, c)
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	advanceSlots(clk, finalizedDepth+2)
	mustFund(t, c, alice.PublicKey(), 9_000_000)
	tx := transfer(t, alice, bob, 5_000_000, latest(c))
	simulate := func(cm rpc.CommitmentType) (any, uint64) {
		t.Helper()
		out, err := cl.SimulateTransactionWithOpts(context.Background(), tx, &rpc.SimulateTransactionOpts{
			Commitment: cm, ReplaceRecentBlockhash: true,
			Accounts: &rpc.SimulateTransactionAccountsOpts{Encoding: solana.EncodingBase64, Addresses: []solana.PublicKey{alice.PublicKey()}},
		})
		if err != nil {
			t.Fatalf("simulate at %s: %v", cm, err)
		}
		if out.Value.Err != nil || len(out.Value.Accounts) == 0 || out.Value.Accounts[0] == nil {
			return out.Value.Err, 0
		}
		return nil, out.Value.Accounts[0].Lamports
	}
	const fee = 5000
	steps := []struct {
		advance int
		want    map[rpc.CommitmentType]bool // whether the transfer succeeds
	}{
		{0, map[rpc.CommitmentType]bool{rpc.CommitmentProcessed: true, rpc.CommitmentConfirmed: false, rpc.CommitmentFinalized: false}},
		{1, map[rpc.CommitmentType]bool{rpc.CommitmentProcessed: true, rpc.CommitmentConfirmed: true, rpc.CommitmentFinalized: false}},
		{finalizedDepth, map[rpc.CommitmentType]bool{rpc.CommitmentProcessed: true, rpc.CommitmentConfirmed: true, rpc.CommitmentFinalized: true}},
	}
	for _, s := range steps {
		advanceSlots(clk, s.advance)
		for _, cm := range []rpc.CommitmentType{rpc.CommitmentProcessed, rpc.CommitmentConfirmed, rpc.CommitmentFinalized} {
			err, post := simulate(cm)
			if ok := err == nil; ok != s.want[cm] {
				t.Fatalf("after %d more slots, at %s: err %v, want success %v", s.advance, cm, err, s.want[cm])
			}
			if err == nil && post != 10_000_000-5_000_000-fee {
				t.Fatalf("after %d more slots, at %s: alice's post-state %d, want %d", s.advance, cm, post, 10_000_000-5_000_000-fee)
			}
		}
	}
}

// TestWriteAsOfReachesThePastBanks: a write dated at an earlier slot is seen by the banks of that
// slot and after (a simulation at confirmed), not by those before it (at finalized).
func TestWriteAsOfReachesThePastBanks(t *testing.T) {
	c, clk := newChain(t, Options{})
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000)
	advanceSlots(clk, finalizedDepth+2)
	mustFund(t, c, bob, 1) // a record of the banks before the dated write
	advanceSlots(clk, 5)
	at := clk.Now().Add(-4 * SlotDuration)
	add := func(a svm.Account, _ bool) (svm.Account, error) { a.Lamports += 9_000_000; return a, nil }
	if err := c.WriteAsOf(at, func() error { return c.State.UpdateAccount(alice.PublicKey(), add) }); err != nil {
		t.Fatal(err)
	}
	tx := raw(t, transfer(t, alice, bob, 5_000_000, latest(c)))
	for cm, ok := range map[rpc.CommitmentType]bool{rpc.CommitmentProcessed: true, rpc.CommitmentConfirmed: true, rpc.CommitmentFinalized: false} {
		res, err := c.Simulate(tx, SimulateOptions{Commitment: cm, ReplaceRecentBlockhash: true})
		if err != nil {
			t.Fatal(err)
		}
		if (res.Err == nil) != ok {
			t.Errorf("at %s: err %v, want success %v", cm, res.Err, ok)
		}
	}
}
