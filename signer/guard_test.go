package signer

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/signer/internal/fixture"
)

func wantRule(t *testing.T, err error, rule Rule) {
	t.Helper()
	r, ok := errors.AsType[*Refusal](err)
	if !ok || r.Rule != rule {
		t.Fatalf("err %v, want rule %s", err, rule)
	}
}

func TestWithGuardConfigErrors(t *testing.T) {
	base := fixtureConfig()
	tests := []struct {
		name string
		edit func(*GuardConfig)
		want string
	}{
		{"no market program", func(c *GuardConfig) { c.MarketProgram = "" }, "market program id is required"},
		{"bad market program", func(c *GuardConfig) { c.MarketProgram = "0OIl" }, "market program"},
		{"bad dex-b program", func(c *GuardConfig) { c.DexBProgram = "short" }, "dex-b program"},
		{"unknown kind", func(c *GuardConfig) { c.Programs = map[Kind][]string{"liquidate": {fixture.MarketProgram.String()}} }, `unknown action kind "liquidate"`},
		{"bad program in list", func(c *GuardConfig) { c.Programs = map[Kind][]string{KindRepay: {"nope"}} }, "programs for repay"},
		{"unknown kind in extras", func(c *GuardConfig) { c.ExtraPrograms = map[Kind][]string{"borrow": nil} }, `extra programs: unknown action kind "borrow"`},
		{"bad extra program", func(c *GuardConfig) { c.ExtraPrograms = map[Kind][]string{KindRepay: {"nope"}} }, "extra programs for repay"},
		{"bad co-signer", func(c *GuardConfig) { c.CoSigners = []string{"nope"} }, "co-signers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			tt.edit(&cfg)
			_, err := newSigner(slices.Clone(fixture.WalletKey)).WithGuard(cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
}

func guarded(t *testing.T, edit func(*GuardConfig)) *Signer {
	t.Helper()
	cfg := fixtureConfig()
	edit(&cfg)
	s, err := newSigner(slices.Clone(fixture.WalletKey)).WithGuard(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func decodeCase(t *testing.T, name string) (*Tx, fixture.Case) {
	t.Helper()
	c := corpusCase(t, name)
	tx, err := DecodeAPITransaction(c.Message, toAPISigs(c.Signatures))
	if err != nil {
		t.Fatal(err)
	}
	return tx, c
}

func TestGuardOptions(t *testing.T) {
	coPays := compile(fixture.Spec{Payer: fixture.CoSigner, Ixs: []fixture.Ix{{Program: fixture.MarketProgram, Data: []byte{1},
		Accounts: []fixture.Meta{fixture.WS(fixture.Wallet), fixture.W(fixture.Loan)}}}})
	otherPays := compile(fixture.Spec{Payer: fixture.OtherCoSigner, Ixs: []fixture.Ix{{Program: fixture.MarketProgram, Data: []byte{1},
		Accounts: []fixture.Meta{fixture.WS(fixture.Wallet), fixture.W(fixture.Loan)}}}})
	coPaysTx, err := DecodeAPITransaction(b64(coPays), []APISignature{cosign(fixture.CoSignerKey, coPays)})
	if err != nil {
		t.Fatal(err)
	}
	otherPaysTx, err := DecodeAPITransaction(b64(otherPays), []APISignature{cosign(fixture.OtherCoSignerKey, otherPays)})
	if err != nil {
		t.Fatal(err)
	}
	nonceTx, nonceCase := decodeCase(t, "bad-durable-nonce")
	repayTx, repayCase := decodeCase(t, "ok-repay-v0-lookup")
	cosignerTx, cosignerCase := decodeCase(t, "bad-unknown-cosigner")
	noBudget := []string{fixture.MarketProgram.String(), solana.TokenProgramID.String(), solana.SPLAssociatedTokenAccountProgramID.String()}
	tests := []struct {
		name   string
		edit   func(*GuardConfig)
		tx     *Tx
		kind   Kind
		bounds Bounds
		want   Rule // "" = signed
	}{
		{"market fee payer refused by default", func(*GuardConfig) {}, coPaysTx, KindClaimFees, Bounds{}, RuleFeePayer},
		{"market fee payer allowed, no fees counted", func(c *GuardConfig) { c.AllowMarketFeePayer = true }, coPaysTx, KindClaimFees, Bounds{}, ""},
		{"allowed fee payer must be a known co-signer", func(c *GuardConfig) { c.AllowMarketFeePayer = true }, otherPaysTx, KindClaimFees, Bounds{}, RuleFeePayer},
		{"any fee payer without a co-signer list", func(c *GuardConfig) { c.AllowMarketFeePayer = true; c.CoSigners = nil }, otherPaysTx, KindClaimFees, Bounds{}, ""},
		{"durable nonce allowed", func(c *GuardConfig) { c.AllowDurableNonce = true }, nonceTx, KindRepay, toBounds(nonceCase.Bounds), ""},
		{"any co-signer without a list", func(c *GuardConfig) { c.CoSigners = nil }, cosignerTx, KindRepay, toBounds(cosignerCase.Bounds), ""},
		{"allowlist override drops ComputeBudget", func(c *GuardConfig) { c.Programs = map[Kind][]string{KindRepay: noBudget} }, repayTx, KindRepay, toBounds(repayCase.Bounds), RuleProgramNotAllowed},
		{"extra program restores ComputeBudget after an override", func(c *GuardConfig) {
			c.Programs = map[Kind][]string{KindRepay: noBudget}
			c.ExtraPrograms = map[Kind][]string{KindRepay: {solana.ComputeBudget.String()}}
		}, repayTx, KindRepay, toBounds(repayCase.Bounds), ""},
		{"extra program for another kind does not help", func(c *GuardConfig) {
			c.Programs = map[Kind][]string{KindRepay: noBudget}
			c.ExtraPrograms = map[Kind][]string{KindClaimFees: {solana.ComputeBudget.String()}}
		}, repayTx, KindRepay, toBounds(repayCase.Bounds), RuleProgramNotAllowed},
		{"override of another kind leaves repay alone", func(c *GuardConfig) { c.Programs = map[Kind][]string{KindClaimFees: noBudget} }, repayTx, KindRepay, toBounds(repayCase.Bounds), ""},
		{"price cap lowered", func(c *GuardConfig) { c.MaxComputeUnitPrice = 49_999 }, repayTx, KindRepay, toBounds(repayCase.Bounds), RuleComputeUnitPrice},
		{"price cap at the price", func(c *GuardConfig) { c.MaxComputeUnitPrice = 50_000 }, repayTx, KindRepay, toBounds(repayCase.Bounds), ""},
		{"action cap lower than the guard's", func(*GuardConfig) {}, repayTx, KindRepay, withUnitPrice(toBounds(repayCase.Bounds), 49_999), RuleComputeUnitPrice},
		{"action cap at the price", func(*GuardConfig) {}, repayTx, KindRepay, withUnitPrice(toBounds(repayCase.Bounds), 50_000), ""},
		{"action cap above the guard's does not raise it", func(c *GuardConfig) { c.MaxComputeUnitPrice = 49_999 }, repayTx, KindRepay, withUnitPrice(toBounds(repayCase.Bounds), 1_000_000), RuleComputeUnitPrice},
		{"repay bounds on another kind", func(*GuardConfig) {}, repayTx, KindClaimFees, toBounds(repayCase.Bounds), RuleTokenOutflow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := guarded(t, tt.edit)
			signed, err := s.Sign(tt.tx, tt.kind, tt.bounds)
			if tt.want != "" {
				wantRule(t, err, tt.want)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			verifyWire(t, signed.Wire, tt.tx.MessageBytes())
		})
	}
}

func TestDurableNonce(t *testing.T) {
	tx, c := decodeCase(t, "bad-durable-nonce")
	info, ok := tx.DurableNonce()
	if !ok || info.Account != fixture.NonceAcct || info.Authority != fixture.Wallet {
		t.Fatalf("nonce %v %+v", ok, info)
	}
	s := guarded(t, func(c *GuardConfig) { c.AllowDurableNonce = true })
	signed, err := s.Sign(tx, KindRepay, toBounds(c.Bounds))
	if err != nil || !signed.DurableNonce {
		t.Fatalf("signed %+v err %v", signed, err)
	}
	nonceIx := fixture.Ix{Program: solana.SystemProgramID, Data: fixture.AdvanceNonce(),
		Accounts: []fixture.Meta{fixture.W(fixture.NonceAcct), fixture.R(fixture.RecentBlockhashesSysvar), fixture.RS(fixture.Wallet)}}
	memo := fixture.Ix{Program: solana.MemoProgramID, Data: []byte("x")}
	hidden := fixture.Spec{Payer: fixture.Wallet, V0: true, Ixs: []fixture.Ix{nonceIx},
		Tables: []fixture.Table{{Key: fixture.LookupTable, Addresses: []solana.PublicKey{fixture.NonceAcct}}}}
	tests := []struct {
		name     string
		msg      []byte
		wantOK   bool
		wantAcct solana.PublicKey
		signRule Rule // under AllowDurableNonce
	}{
		{"first instruction", compile(fixture.Spec{Payer: fixture.Wallet, Ixs: []fixture.Ix{nonceIx, memo}}), true, fixture.NonceAcct, ""},
		{"nonce account from a lookup table", compile(hidden), true, solana.PublicKey{}, ""},
		{"second instruction", compile(fixture.Spec{Payer: fixture.Wallet, Ixs: []fixture.Ix{memo, nonceIx}}), false, solana.PublicKey{}, RuleDurableNonce},
		{"no instructions", compile(fixture.Spec{Payer: fixture.Wallet}), false, solana.PublicKey{}, ""},
		{"plain transfer first", compile(fixture.Spec{Payer: fixture.Wallet, Ixs: []fixture.Ix{{Program: solana.SystemProgramID,
			Data: fixture.SystemTransfer(1), Accounts: []fixture.Meta{fixture.WS(fixture.Wallet), fixture.W(fixture.Wallet)}}}}), false, solana.PublicKey{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx, err := DecodeAPITransaction(b64(tt.msg), nil)
			if err != nil {
				t.Fatal(err)
			}
			info, ok := tx.DurableNonce()
			if ok != tt.wantOK || info.Account != tt.wantAcct {
				t.Fatalf("nonce %v %+v, want %v %s", ok, info, tt.wantOK, tt.wantAcct)
			}
			_, err = s.Sign(tx, KindStrategyUpdate, Bounds{MaxLamports: 1_000_000})
			if tt.signRule != "" {
				wantRule(t, err, tt.signRule)
			} else if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestGuardStaticAccounting(t *testing.T) {
	s := fixtureSigner(t)
	usdc, sol := fixture.USDC.String(), solana.WrappedSol.String()
	unchecked := func(amount uint64) fixture.Ix {
		return fixture.Ix{Program: solana.TokenProgramID, Data: fixture.TokenTransfer(amount),
			Accounts: []fixture.Meta{fixture.W(fixture.WalletUSDC), fixture.W(fixture.MarketVault), fixture.RS(fixture.Wallet)}}
	}
	checked := func(amount uint64) fixture.Ix {
		return fixture.Ix{Program: solana.TokenProgramID, Data: fixture.TokenTransferChecked(amount, 6),
			Accounts: []fixture.Meta{fixture.W(fixture.WalletUSDC), fixture.R(fixture.USDC), fixture.W(fixture.MarketVault), fixture.RS(fixture.Wallet)}}
	}
	inflow := fixture.Ix{Program: solana.SystemProgramID, Data: fixture.SystemTransfer(5_000_000_000),
		Accounts: []fixture.Meta{fixture.WS(fixture.CoSigner), fixture.W(fixture.Wallet)}}
	closeToUs := fixture.Ix{Program: solana.TokenProgramID, Data: fixture.TokenCloseAccount(),
		Accounts: []fixture.Meta{fixture.W(fixture.MarketVault), fixture.W(fixture.Wallet), fixture.RS(fixture.CoSigner)}}
	tests := []struct {
		name   string
		ixs    []fixture.Ix
		kind   Kind
		bounds Bounds
		want   Rule
	}{
		{"unnamed mint within the only bound", []fixture.Ix{unchecked(1_000_000)}, KindRepay, Bounds{MaxLamports: 10_000, MaxTokens: map[string]uint64{usdc: 1_000_000}}, ""},
		{"unnamed mint must fit the smallest bound", []fixture.Ix{unchecked(500_000)}, KindRepay, Bounds{MaxLamports: 10_000, MaxTokens: map[string]uint64{usdc: 1_000_000, sol: 100_000}}, RuleTokenBound},
		{"unnamed mint without any bound", []fixture.Ix{unchecked(1)}, KindRepay, Bounds{MaxLamports: 10_000}, RuleTokenBound},
		{"named and unnamed add up", []fixture.Ix{checked(600_000), unchecked(500_000)}, KindRepay, Bounds{MaxLamports: 10_000, MaxTokens: map[string]uint64{usdc: 1_000_000}}, RuleTokenBound},
		{"two transfers add up", []fixture.Ix{checked(600_000), checked(400_000)}, KindRepay, Bounds{MaxLamports: 10_000, MaxTokens: map[string]uint64{usdc: 1_000_000}}, ""},
		{"mint without a bound", []fixture.Ix{checked(1)}, KindRepay, Bounds{MaxLamports: 10_000, MaxTokens: map[string]uint64{sol: 1_000_000}}, RuleTokenBound},
		{"SOL paid to us by a co-signer", []fixture.Ix{inflow}, KindClaimWithdrawals, Bounds{MaxLamports: 10_000}, ""},
		{"account closed to us by a co-signer", []fixture.Ix{closeToUs}, KindClaimWithdrawals, Bounds{MaxLamports: 10_000}, ""},
		{"fee of two signatures above the bound", []fixture.Ix{inflow}, KindClaimWithdrawals, Bounds{MaxLamports: 9_999}, RuleLamportsBound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := compile(fixture.Spec{Payer: fixture.Wallet, Ixs: tt.ixs})
			var sigs []APISignature
			if slices.ContainsFunc(tt.ixs, func(ix fixture.Ix) bool {
				return slices.ContainsFunc(ix.Accounts, func(m fixture.Meta) bool { return m.Key == fixture.CoSigner })
			}) {
				sigs = append(sigs, cosign(fixture.CoSignerKey, msg))
			}
			tx, err := DecodeAPITransaction(b64(msg), sigs)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Sign(tx, tt.kind, tt.bounds)
			if tt.want != "" {
				wantRule(t, err, tt.want)
			} else if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestFees(t *testing.T) {
	ix := func(data []byte) fixture.Ix { return fixture.Ix{Program: solana.ComputeBudget, Data: data} }
	memo := fixture.Ix{Program: solana.MemoProgramID, Data: []byte("m")}
	many := slices.Repeat([]fixture.Ix{memo}, 8)
	tests := []struct {
		name string
		ixs  []fixture.Ix
		want uint64
	}{
		{"base fee only", []fixture.Ix{memo}, 5000},
		{"price without limit uses 200k per instruction", []fixture.Ix{ix(fixture.CUPrice(1_000_000)), memo}, 5000 + 200_000},
		{"default limit capped at 1.4M", append([]fixture.Ix{ix(fixture.CUPrice(1_000_000))}, many...), 5000 + 1_400_000},
		{"explicit limit", []fixture.Ix{ix(fixture.CULimit(300_000)), ix(fixture.CUPrice(50_000)), memo}, 5000 + 15_000},
		{"explicit limit above 1.4M is clamped", []fixture.Ix{ix(fixture.CULimit(2_000_000)), ix(fixture.CUPrice(1_000_000))}, 5000 + 1_400_000},
		{"priority fee rounds up", []fixture.Ix{ix(fixture.CULimit(1)), ix(fixture.CUPrice(1))}, 5001},
		{"huge price saturates", []fixture.Ix{ix(fixture.CULimit(1_400_000)), ix(fixture.CUPrice(math.MaxUint64))}, math.MaxUint64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parseMessage(compile(fixture.Spec{Payer: fixture.Wallet, Ixs: tt.ixs}))
			if err != nil {
				t.Fatal(err)
			}
			c := &check{g: &guard{maxUnitPrice: math.MaxUint64}, m: m}
			for i, ix := range m.ixs {
				if m.keys[ix.program] == solana.ComputeBudget {
					if err := (ixCheck{c: c, i: i, ix: ix, prog: solana.ComputeBudget}).computeBudget(); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got := c.tally.fees(m); got != tt.want {
				t.Fatalf("fees %d, want %d", got, tt.want)
			}
		})
	}
}

func TestBoundsErrors(t *testing.T) {
	s := fixtureSigner(t)
	tx, _ := decodeCase(t, "ok-tip")
	for _, b := range []Bounds{{MaxTokens: map[string]uint64{"bad mint": 1}}, {TipAccounts: []string{"bad"}}} {
		_, err := s.Sign(tx, KindTip, b)
		if err == nil || !strings.Contains(err.Error(), "signer: bounds") {
			t.Fatalf("err %v, want a bounds error", err)
		}
		if _, ok := errors.AsType[*Refusal](err); ok {
			t.Fatal("a bounds error is not a refusal")
		}
	}
}

func TestSignLeavesTxAndOthersAlone(t *testing.T) {
	unguarded := newSigner(slices.Clone(fixture.WalletKey))
	s, err := unguarded.WithGuard(fixtureConfig())
	if err != nil {
		t.Fatal(err)
	}
	tx, c := decodeCase(t, "ok-repay-v0-lookup")
	before := tx.Signatures()
	a, err := s.Sign(tx, KindRepay, toBounds(c.Bounds))
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Sign(tx, KindRepay, toBounds(c.Bounds))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Wire, b.Wire) || !slices.Equal(tx.Signatures(), before) {
		t.Fatal("signing is not repeatable or modified the Tx")
	}
	if slots := slotsOf(t, a.Wire); slots[1] != before[1] || slots[0] != a.Signature || a.TxID != a.Signature {
		t.Fatal("slots are not ours first and the co-signature second")
	}
	if err := s.Check(tx, KindRepay, toBounds(c.Bounds)); err != nil {
		t.Fatalf("Check: %v", err)
	}
	for _, err := range []error{unguarded.Check(tx, KindRepay, toBounds(c.Bounds)), errOf(unguarded.Sign(tx, KindRepay, toBounds(c.Bounds)))} {
		if !errors.Is(err, errNoGuard) {
			t.Fatalf("unguarded signer: %v", err)
		}
	}
	if got := a.Base64(); got != b64(a.Wire) || !strings.Contains(a.String(), a.TxID.String()) {
		t.Fatalf("Base64/String: %s / %s", got, a)
	}
}

func errOf[T any](_ T, err error) error { return err }

func TestMisuseIsAnErrorNotAPanic(t *testing.T) {
	s := fixtureSigner(t)
	tx, c := decodeCase(t, "ok-tip")
	var zero Signer
	checks := []struct {
		name string
		err  error
		want error
	}{
		{"nil tx", errOf(s.Sign(nil, KindTip, toBounds(c.Bounds))), errNoTx},
		{"zero tx", errOf(s.Sign(&Tx{}, KindTip, toBounds(c.Bounds))), errNoTx},
		{"zero signer sign", errOf(zero.Sign(tx, KindTip, toBounds(c.Bounds))), errNoGuard},
		{"zero signer guard", errOf(zero.WithGuard(fixtureConfig())), errNoKey},
		{"zero signer tip", errOf(zero.SignTip(tx.MessageBytes(), nil, 1)), errNoGuard},
		{"zero signer write", zero.WriteKeypairFile(t.TempDir() + "/k.json"), errNoKey},
	}
	for _, c := range checks {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
}

// TestConcurrentSigning shares one Signer and one Tx across goroutines
// (run with -race).
func TestConcurrentSigning(t *testing.T) {
	s := fixtureSigner(t)
	tx, c := decodeCase(t, "ok-repay-v0-lookup")
	want, err := s.Sign(tx, KindRepay, toBounds(c.Bounds))
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			got, err := s.Sign(tx, KindRepay, toBounds(c.Bounds))
			if err == nil && !slices.Equal(got.Wire, want.Wire) {
				err = errors.New("different wire bytes")
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func withUnitPrice(b Bounds, price uint64) Bounds {
	b.MaxComputeUnitPrice = price
	return b
}
