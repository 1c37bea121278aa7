package keeper

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/ids"
)

// kindCase is one example policy file acting on the default scenario.
type kindCase struct {
	name     string
	file     string        // in examples/policies
	wait     time.Duration // scenario time until the file's policies have something to do
	policies []string      // the file's policies, each of which must land one action
	// verify snapshots what the action should change, calls run (one
	// RunOnce), and checks the change on the simulated chain and market.
	verify func(t *testing.T, w *simWorld, k *simKeeper, run func())
}

// TestExampleKindsLandOnSim runs each example policy file once against the
// default scenario, after the scenario event that calls for it, and checks
// on the simulated chain and market that the action did what it says,
// exactly once: a second run finds nothing left to do.
func TestExampleKindsLandOnSim(t *testing.T) {
	cases := []kindCase{
		{name: "repay", file: "auto-repay.yaml", wait: 15 * time.Second, policies: []string{"auto-repay"}, verify: verifyRepay},
		{name: "rebalance", file: "rebalance.yaml", wait: 25 * time.Second, policies: []string{"rebalance-dex-a"}, verify: verifyRebalance},
		{name: "claim-fees", file: "claim-fees.yaml", wait: 30 * time.Second, policies: []string{"claim-fees-dex-b"}, verify: verifyClaimFees},
		{name: "claim-withdrawals", file: "claim-withdrawals.yaml", wait: 25 * time.Second, policies: []string{"claim-earn-withdrawals"}, verify: verifyClaimWithdrawals},
		{name: "strategy-update+withdraw", file: "vault-upkeep.yaml", wait: 10 * time.Second,
			policies: []string{"track-best-quote", "sweep-idle-principal"}, verify: verifyVaultUpkeep},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { runKindCase(t, tc) })
		})
	}
}

func runKindCase(t *testing.T, tc kindCase) {
	w := newSimWorld(t, simOptions{})
	w.usePolicies(t, tc.file)
	k := w.open(t, "")
	w.advance(t, tc.wait)
	run := func() {
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatalf("RunOnce: %v", err)
		}
	}
	tc.verify(t, w, k, run)
	wantLanded := 0
	for _, p := range tc.policies {
		acts := k.actionsOf(t, p)
		if len(acts) != 1 {
			t.Fatalf("policy %s journaled %d actions, want 1", p, len(acts))
		}
		wantLanded += checkOnChain(t, w, acts[0])
	}
	if got := len(w.landed.paidBy(w.wallet())); got != wantLanded {
		t.Errorf("%d transactions paid by the wallet landed, want the actions' %d", got, wantLanded)
	}
	landed, builds := len(w.landed.paidBy(w.wallet())), len(w.net.buildKeys())
	run()
	for _, p := range tc.policies {
		if n := len(k.actionsOf(t, p)); n != 1 {
			t.Errorf("second run: policy %s has %d actions, want still 1", p, n)
		}
	}
	if l, b := len(w.landed.paidBy(w.wallet())), len(w.net.buildKeys()); l != landed || b != builds {
		t.Errorf("second run landed %d and built %d more, want nothing", l-landed, b-builds)
	}
}

// checkOnChain asserts that act landed in exactly one attempt, built with
// the idempotency key of that attempt, and that every transaction it
// journaled is on chain without error. It returns how many transactions
// paid by the wallet the action landed: its own, and keeper's tip for a
// bundle.
func checkOnChain(t *testing.T, w *simWorld, act journal.Action) int {
	t.Helper()
	if act.State != journal.StateLanded || act.AttemptCount != 1 {
		t.Fatalf("action %s: %s after %d attempts (rule %q: %s), want landed in 1", act.Policy, act.State, act.AttemptCount, act.Rule, act.Detail)
	}
	att := act.Attempts[0]
	if att.IdempotencyKey != act.ID+"-1" {
		t.Errorf("attempt key %q, want %q", att.IdempotencyKey, act.ID+"-1")
	}
	if len(att.Signatures) == 0 {
		t.Fatal("landed attempt journaled no signatures")
	}
	for _, s := range att.Signatures {
		x, ok := w.sim.Chain().Ledger.Transaction(solana.MustSignatureFromBase58(s.Signature))
		switch {
		case !ok:
			t.Errorf("journaled signature %s is not on chain", s.Signature)
		case x.Err != nil:
			t.Errorf("transaction %s landed with error %v", s.Signature, x.Err)
		}
	}
	if att.Mode == journal.ModeBundle {
		return len(att.Signatures) + 1 // keeper's own tip transaction
	}
	return len(att.Signatures)
}

// loanHealth is the health of the scenario's loan name as the market shows it now.
func loanHealth(t *testing.T, w *simWorld, name string) float64 {
	t.Helper()
	item, err := w.sim.Accounts().Loan(w.address(t, ids.KindLoan, name))
	if err != nil {
		t.Fatalf("loan %s: %v", name, err)
	}
	f, err := market.ComputeLoanFacts(asClient[market.LoanItem](t, item), time.Now(), nil)
	if err != nil {
		t.Fatalf("loan %s facts: %v", name, err)
	}
	return f.Health
}

// usdc is the scenario's USDC mint.
func (w *simWorld) usdc(t *testing.T) solana.PublicKey { return w.address(t, ids.KindMint, "USDC") }

// verifyRepay: loan repay-me, under its trigger health 0.2 after SOL's fall,
// is repaid back to the target health 0.3 with the planned amount.
func verifyRepay(t *testing.T, w *simWorld, k *simKeeper, run func()) {
	if h := loanHealth(t, w, "repay-me"); h >= 0.2 {
		t.Fatalf("health before %.3f: the scenario should have taken it under 0.2", h)
	}
	usdc := w.usdc(t)
	before := w.sim.Accounts().TokenBalance(w.wallet(), usdc)
	run()
	if h := loanHealth(t, w, "repay-me"); h < 0.299 || h > 0.31 {
		t.Errorf("health after repay %.4f, want the target 0.3", h)
	}
	act := k.actionsOf(t, "auto-repay")[0]
	if spent := before - w.sim.Accounts().TokenBalance(w.wallet(), usdc); spent != act.Amount || spent == 0 {
		t.Errorf("wallet spent %d USDC units, journaled amount %d", spent, act.Amount)
	}
	if act.Target != w.address(t, ids.KindLoan, "repay-me").String() || act.Mint != usdc.String() {
		t.Errorf("action target %s mint %s", act.Target, act.Mint)
	}
}

// verifyRebalance: position pos-a, out of range after the pool's fall, is
// moved to a range around the current price with the same liquidity.
func verifyRebalance(t *testing.T, w *simWorld, _ *simKeeper, run func()) {
	mint := w.address(t, ids.KindPosition, "pos-a")
	pos, pool, err := w.sim.Accounts().Position(mint)
	if err != nil {
		t.Fatal(err)
	}
	if pos.InRange(pool) {
		t.Fatalf("pos-a %v in range before: the scenario should have moved the pool", pos.Range)
	}
	run()
	after, pool, err := w.sim.Accounts().Position(mint)
	if err != nil {
		t.Fatal(err)
	}
	if !after.InRange(pool) || after.Range == pos.Range || !after.Range.Aligned(pool.TickSpacing) {
		t.Errorf("pos-a range %v → %v (spacing %d), want a new aligned range holding the current price", pos.Range, after.Range, pool.TickSpacing)
	}
	if after.Liquidity != pos.Liquidity {
		t.Errorf("liquidity %v → %v, want unchanged", pos.Liquidity, after.Liquidity)
	}
}

// verifyClaimFees: the fees owed to pos-b, most of them accrued through the
// pool's fee growth and not in the account, are paid to the wallet; nothing
// is owed after.
func verifyClaimFees(t *testing.T, w *simWorld, _ *simKeeper, run func()) {
	mint := w.address(t, ids.KindPosition, "pos-b")
	pos, pool, err := w.sim.Accounts().Position(mint)
	if err != nil {
		t.Fatal(err)
	}
	owed, err := w.sim.Accounts().PositionOwed(mint)
	if err != nil {
		t.Fatal(err)
	}
	owed0, owed1 := owed.Fees0, owed.Fees1
	if stored0, stored1 := pos.FeesOwed(); owed0 == 0 || owed1 < 10_000_000 || stored1 >= 10_000_000 {
		t.Fatalf("pos-b owes %d / %d (stores %d / %d) before: the scenario should have accrued fees the account does not show",
			owed0, owed1, stored0, stored1)
	}
	bal0, bal1 := w.sim.Accounts().TokenBalance(w.wallet(), pool.Mint0), w.sim.Accounts().TokenBalance(w.wallet(), pool.Mint1)
	run()
	after, _, err := w.sim.Accounts().Position(mint)
	if err != nil {
		t.Fatal(err)
	}
	if a0, a1 := after.FeesOwed(); a0 != 0 || a1 != 0 {
		t.Errorf("pos-b still stores %d / %d after the claim", a0, a1)
	}
	if left, err := w.sim.Accounts().PositionOwed(mint); err != nil || left.Fees0 != 0 || left.Fees1 != 0 {
		t.Errorf("pos-b still owes %+v (%v) after the claim", left, err)
	}
	got0, got1 := w.sim.Accounts().TokenBalance(w.wallet(), pool.Mint0)-bal0, w.sim.Accounts().TokenBalance(w.wallet(), pool.Mint1)-bal1
	if got0 != owed0 || got1 != owed1 {
		t.Errorf("wallet received %d / %d, want the fees owed %d / %d", got0, got1, owed0, owed1)
	}
}

// verifyClaimWithdrawals: the filled request r-full is paid once and
// closed; the partial one stays queued.
func verifyClaimWithdrawals(t *testing.T, w *simWorld, k *simKeeper, run func()) {
	full := w.address(t, ids.KindRequest, "usdc-earn/r-full")
	partial := w.address(t, ids.KindRequest, "usdc-earn/r-partial")
	if r, err := w.sim.Accounts().WithdrawalRequest(full); err != nil || !asClient[market.WithdrawalRequest](t, r).Claimable() {
		t.Fatalf("r-full before: %+v, %v; want claimable", r, err)
	}
	usdc := w.usdc(t)
	before := w.sim.Accounts().TokenBalance(w.wallet(), usdc)
	run()
	if got := w.sim.Accounts().TokenBalance(w.wallet(), usdc) - before; got != 300_000_000 {
		t.Errorf("wallet received %d USDC units, want the 300 USDC requested", got)
	}
	if r, err := w.sim.Accounts().WithdrawalRequest(full); err == nil && (asClient[market.WithdrawalRequest](t, r).Claimable() || r.ClaimedAmount != r.RequestedAmount) {
		t.Errorf("r-full after the claim: %+v, want claimed in full and no longer claimable", r)
	}
	if r, err := w.sim.Accounts().WithdrawalRequest(partial); err != nil || r.ClaimedAmount != 0 {
		t.Errorf("r-partial: %+v, %v; want untouched", r, err)
	}
	if act := k.actionsOf(t, "claim-earn-withdrawals")[0]; act.Attempts[0].Mode != journal.ModeBundle || act.Attempts[0].TipLamports == 0 {
		t.Errorf("claim landed by %s with tip %d, want a tipped bundle", act.Attempts[0].Mode, act.Attempts[0].TipLamports)
	}
}

// verifyVaultUpkeep: strategy alpha's SOL 7-day APY follows the best other
// quote (beta's 9 %) plus 25 bps, and its idle principal above the 20,000
// USDC buffer is swept to the wallet.
func verifyVaultUpkeep(t *testing.T, w *simWorld, _ *simKeeper, run func()) {
	alpha := w.address(t, ids.KindStrategy, "alpha")
	usdc := w.usdc(t)
	before := w.sim.Accounts().TokenBalance(w.wallet(), usdc)
	if got := solAPY(t, w, alpha, 7); got != 120_000 {
		t.Fatalf("alpha SOL 7d APY before %d, want the scenario's 120000", got)
	}
	run()
	if got := solAPY(t, w, alpha, 7); got != 92_500 {
		t.Errorf("alpha SOL 7d APY after %d cBPS, want 92500 (beta's 9%% + 25 bps)", got)
	}
	s, err := w.sim.Accounts().Strategy(alpha)
	if err != nil {
		t.Fatal(err)
	}
	if s.Strategy.TokenBalance != 20_000_000_000 {
		t.Errorf("alpha idle %d, want the 20,000 USDC buffer", s.Strategy.TokenBalance)
	}
	if got := w.sim.Accounts().TokenBalance(w.wallet(), usdc) - before; got != 40_000_000_000 {
		t.Errorf("wallet received %d USDC units, want the 40,000 USDC swept", got)
	}
}

// solAPY is strategy's APY for SOL collateral at a term of days.
func solAPY(t *testing.T, w *simWorld, strategy solana.PublicKey, days int32) market.CBPS {
	t.Helper()
	vs, err := w.sim.Accounts().Strategy(strategy)
	if err != nil {
		t.Fatal(err)
	}
	s := asClient[market.VaultStrategy](t, vs)
	sol := w.address(t, ids.KindMint, "SOL").String()
	for _, term := range s.CollateralTerms {
		if term.AssetIdentifier != sol {
			continue
		}
		apys, err := term.APYs()
		if err != nil {
			t.Fatal(err)
		}
		return apys[market.StrategyDuration{DurationType: market.DurationDays, Duration: days}]
	}
	t.Fatalf("strategy %s has no SOL terms", strategy)
	return 0
}

// isActionsFailed reports whether err says some action failed or was refused.
func isActionsFailed(err error) bool { return errors.Is(err, ErrActionsFailed) }
