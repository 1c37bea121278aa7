package policies

import (
	"crypto/sha256"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/market"
)

// key returns a deterministic base58 address for a label.
func key(label string) string { return pubkey(label).String() }

func pubkey(label string) solana.PublicKey {
	return solana.PublicKey(sha256.Sum256([]byte("policies test " + label)))
}

var (
	t0     = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	wallet = key("wallet")
	usdc   = key("usdc")
	sol    = key("sol")
	coll   = key("collateral")
)

// tokens knows USDC (6 decimals) and a collateral token.
var tokens = map[string]Token{usdc: {Symbol: "USDC", Decimals: 6}, coll: {Symbol: "COLL", Decimals: 9}}

// parseOne parses a one-policy file and fails the test on errors.
func parseOne(t testing.TB, src string) *Policy {
	t.Helper()
	ps, err := Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(ps) != 1 {
		t.Fatalf("Parse: got %d policies, want 1", len(ps))
	}
	return ps[0]
}

// policyYAML wraps the lines of one policy (without the list dash) in a
// policy file.
func policyYAML(lines ...string) string {
	var b strings.Builder
	b.WriteString("policies:\n")
	for i, l := range lines {
		if i == 0 {
			b.WriteString("  - " + l + "\n")
		} else {
			b.WriteString("    " + l + "\n")
		}
	}
	return b.String()
}

// ledger describes one ledger of a test loan.
type ledger struct {
	principal, repaid, interest uint64
	perSecond                   float64
	endIn                       time.Duration
	weight, lqt                 market.CBPS
}

// loan builds a loans-info item of the wallet with one collateral worth
// collUSD; principalUsd prices every ledger at 1e-6 USD per unit (1 USDC).
func loan(label string, collUSD float64, ls ...ledger) market.LoanItem {
	addr := key(label)
	it := market.LoanItem{
		Loan:                market.Loan{Address: addr, Borrower: wallet, WriteVersion: 7, LastInteractedTxn: "txn-" + label},
		Collateral:          []market.Collateral{{AssetIdentifier: coll, AssetMint: coll, Index: 0, Loan: addr, Amount: 1}},
		CollateralBreakdown: []market.CollateralUSD{{AssetIdentifier: coll, Usd: collUSD}},
		CollateralUsd:       collUSD,
	}
	var outstanding uint64
	for i, l := range ls {
		it.Ledgers = append(it.Ledgers, market.Ledger{
			LedgerIndex: i, Loan: addr, PrincipalMint: usdc, PrincipalDue: market.Amount(l.principal),
			PrincipalRepaid: market.Amount(l.repaid), InterestOutstanding: market.Amount(l.interest),
			InterestPerSecond: market.Number(l.perSecond), EndTime: market.UnixTimeOf(t0.Add(l.endIn)),
			Weights: []market.CBPS{l.weight}, LqtRatios: []market.CBPS{l.lqt}, Apy: 100_000,
			Duration: 30, DurationType: market.DurationDays,
		})
		outstanding += l.principal - l.repaid
	}
	it.PrincipalUsd = float64(outstanding) / 1e6
	return it
}

// full is a ledger row with all the collateral at an 80 % threshold and a
// term ending in 30 days.
func full(principal uint64) ledger {
	return ledger{principal: principal, endIn: 30 * 24 * time.Hour, weight: 1_000_000, lqt: 800_000}
}

// observe wraps loans in a fresh observation taken at t0.
func observe(loans ...market.LoanItem) *Observation {
	return &Observation{Wallet: wallet, SnapshotTime: t0, Loans: loans, Tokens: tokens}
}

// evaluate runs Evaluate at t0 with an empty history and state.
func evaluate(t testing.TB, p *Policy, obs *Observation) Result {
	t.Helper()
	res, err := Evaluate(p, obs, t0, History{}, &State{})
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	return res
}

// clmmPosition builds a CLMM position observation of a loan.
func clmmPosition(loanLabel, mintLabel, layout string, r clmm.Range, tick int32, spacing uint16) PositionObservation {
	dex, err := clmm.NewDex(layout, pubkey("program "+layout))
	if err != nil {
		panic(err)
	}
	pool := pubkey("pool " + mintLabel)
	return PositionObservation{Loan: key(loanLabel), CollateralIndex: 0, State: clmm.PositionState{
		Request:  clmm.PositionRequest{Dex: dex, Pool: pool, PositionMint: pubkey(mintLabel)},
		Position: clmm.Position{Pool: pool, Mint: pubkey(mintLabel), Range: r, Liquidity: clmm.U128From64(123_456)},
		Pool: clmm.Pool{Mint0: pubkey("mint0"), Mint1: pubkey("mint1"), TickSpacing: spacing, TickCurrent: tick,
			HasDecimals: true, Decimals0: 9, Decimals1: 6, SqrtPriceX64: clmm.U128{Hi: 1}},
	}}
}

// reasons lists the skip reasons of a result, "target:reason" each.
func reasons(r Result) []string {
	var out []string
	for _, s := range r.Skipped {
		out = append(out, s.Target+":"+string(s.Reason))
	}
	return out
}

// jsonOf renders v as JSON for messages.
func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
