package examples_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// The example policy files, one per use case (paths relative to examples/).
const (
	autoRepay        = "policies/auto-repay.yaml"
	rebalance        = "policies/rebalance.yaml"
	claimFees        = "policies/claim-fees.yaml"
	claimWithdrawals = "policies/claim-withdrawals.yaml"
	vaultUpkeep      = "policies/vault-upkeep.yaml"
	alerts           = "policies/alerts.yaml"
)

// Amounts of the default scenario (keeper/sim/default_scenario.yaml), in base units.
const (
	usdc         = 1_000_000      // one USDC
	sol          = 1_000_000_000  // one SOL
	alphaIdle    = 60_000 * usdc  // strategy alpha's idle principal
	sweepBuffer  = 20_000 * usdc  // vault-upkeep.yaml's buffer
	rFullAmount  = 300 * usdc     // earn request r-full, fully filled at 20s
	posBFeesUSDC = 17 * usdc      // pos-b's USDC fees owed from 25s
	posBFeesSOL  = sol * 16 / 100 // and its SOL fees
	repayTrigger = 0.2            // auto-repay.yaml's trigger_health
	repayTarget  = 0.3            // and target_health
	// Strategy alpha's SOL APYs (cBPS) at the start, and what track-best-quote sets from 5s: the best
	// other quote (beta's 9 % and 9.5 %) plus offset_bps 25.
	alphaQuote7d  = 120_000
	alphaQuote30d = 110_000
	bestQuote7d   = 92_500
	bestQuote30d  = 97_500
)

// TestE2EUseCases runs the real binary against `keeper sim` through the default scenario, one use
// case at a time, and checks the chain and market state after each: what should wait waits, what
// should act lands exactly once, and the wallet signs nothing the journal does not hold.
func TestE2EUseCases(t *testing.T) {
	needBinary(t)
	t.Parallel()
	s := startSim(t)
	w := newWorkspace(t, s)
	start := s.state(t)

	t.Run("nothing acts before the scenario's events", func(t *testing.T) {
		cfg := w.config(t, "waiting", []string{autoRepay, rebalance, claimFees, claimWithdrawals})
		w.once(t, cfg)
		st := s.state(t)
		w.nothingNew(t, cfg, st)
		if st.Wallet.Lamports != start.Wallet.Lamports || st.Wallet.Tokens["USDC"] != start.Wallet.Tokens["USDC"] {
			t.Errorf("wallet changed: %+v → %+v", start.Wallet, st.Wallet)
		}
	})
	if t.Failed() {
		return
	}
	steps := []struct {
		name  string
		until float64
		run   func(t *testing.T)
	}{
		{"vault upkeep updates terms and sweeps idle principal", 5, func(t *testing.T) { vaultUpkeepLands(t, w) }},
		{"auto-repay restores health once; fees below the minimum wait", 10, func(t *testing.T) { autoRepayLands(t, w) }},
		{"a dex-a position's owed fees match the program formula", 20, func(t *testing.T) { dexAOwedMatchesFormula(t, w) }},
		{"rebalance moves the out-of-range position", 20, func(t *testing.T) { rebalanceLands(t, w) }},
		{"a filled withdrawal is claimed once by bundle", 20, func(t *testing.T) { claimWithdrawalLands(t, w) }},
		{"fees over the minimum are claimed to the wallet", 25, func(t *testing.T) { claimFeesLands(t, w) }},
		// The rewards end at 30 s by the chain's clock; the confirmed block is a slot or two behind.
		{"an alert posts to its webhook and signs nothing", 32, func(t *testing.T) { alertPostsWebhook(t, w) }},
	}
	for _, step := range steps {
		s.until(t, step.until)
		if !t.Run(step.name, step.run) {
			return
		}
	}
	t.Run("journal and chain agree", func(t *testing.T) { journalMatchesChain(t, w) })
}

// vaultUpkeepLands runs vault-upkeep.yaml after the best other quote fell (5s).
func vaultUpkeepLands(t *testing.T, w *workspace) {
	before := w.sim.state(t)
	cfg := w.config(t, "upkeep", []string{vaultUpkeep})
	w.once(t, cfg)
	after := w.sim.state(t)
	vault := w.sim.address(t, "vault", "alpha-vault")
	acts := w.landedOnce(t, cfg, after, map[string]string{"track-best-quote": vault, "sweep-idle-principal": vault})

	alpha := after.Strategies["alpha"]
	for term, want := range map[string][2]int64{"7 days": {alphaQuote7d, bestQuote7d}, "30 days": {alphaQuote30d, bestQuote30d}} {
		was, now := before.Strategies["alpha"].Terms["SOL"][term], alpha.Terms["SOL"][term]
		if was != want[0] || now != want[1] {
			t.Errorf("alpha SOL %s APY %d → %d, want %d → %d (the best other quote + 0.25%%)", term, was, now, want[0], want[1])
		}
	}
	if before.Strategies["alpha"].Idle != alphaIdle || alpha.Idle != sweepBuffer {
		t.Errorf("alpha idle %d → %d, want %d → %d", before.Strategies["alpha"].Idle, alpha.Idle, alphaIdle, sweepBuffer)
	}
	if got := after.Wallet.Tokens["USDC"] - before.Wallet.Tokens["USDC"]; got != alphaIdle-sweepBuffer {
		t.Errorf("wallet received %d USDC units, want the swept %d", got, alphaIdle-sweepBuffer)
	}
	// No tokens: in the config: the amount is named from the chain (the mint and its metadata).
	if a := acts["sweep-idle-principal"]; !strings.Contains(a.Reason, "withdraw 40000 USDC") {
		t.Errorf("sweep reason %q", a.Reason)
	}
}

// autoRepayLands runs auto-repay.yaml after SOL fell (10s), then again with claim-fees.yaml while
// only 7 USDC of fees are owed.
func autoRepayLands(t *testing.T, w *workspace) {
	before := w.sim.state(t)
	loanBefore := before.Loans["repay-me"]
	if loanBefore.Health >= repayTrigger {
		t.Fatalf("repay-me health %v before the run, want under the trigger %v", loanBefore.Health, repayTrigger)
	}
	hook, bodies := webhookReceiver(t)
	cfg := w.config(t, "repay", []string{notifyingCopy(t, autoRepay, "{ to: [hook], on: [landed] }")},
		map[string]any{"name": "hook", "type": "webhook", "url": hook})
	w.once(t, cfg)
	after := w.sim.state(t)
	acts := w.landedOnce(t, cfg, after, map[string]string{"auto-repay": loanBefore.Address})
	landedMessageLinks(t, w, bodies, acts["auto-repay"])
	loan := after.Loans["repay-me"]
	if loan.Health < repayTarget || loan.Health > repayTarget+0.01 {
		t.Errorf("repay-me health %v → %v, want back at the target %v (just above)", loanBefore.Health, loan.Health, repayTarget)
	}
	repaid := loanBefore.Outstanding - loan.Outstanding
	if repaid == 0 || repaid != acts["auto-repay"].Amount {
		t.Errorf("repaid %d units, the journal says %d", repaid, acts["auto-repay"].Amount)
	}
	if paid := before.Wallet.Tokens["USDC"] - after.Wallet.Tokens["USDC"]; paid != repaid {
		t.Errorf("wallet paid %d USDC units for a repayment of %d", paid, repaid)
	}

	again := w.config(t, "repay-again", []string{autoRepay, claimFees})
	w.once(t, again)
	st := w.sim.state(t)
	w.nothingNew(t, again, st)
	if st.Loans["repay-me"].Outstanding != loan.Outstanding || st.Positions["pos-b"].FeesOwed1 != 7*usdc {
		t.Errorf("second run: repay-me outstanding %d (was %d), pos-b USDC fees %d (want 7 USDC untouched)",
			st.Loans["repay-me"].Outstanding, loan.Outstanding, st.Positions["pos-b"].FeesOwed1)
	}
	if st.Positions["pos-b"].FeesStored1 != 2*usdc {
		t.Errorf("pos-b stores %d USDC units, want the 2 USDC it opened with (never touched)", st.Positions["pos-b"].FeesStored1)
	}
}

// rebalanceLands runs rebalance.yaml once pos-a's pool fell out of its range (20s).
func rebalanceLands(t *testing.T, w *workspace) {
	before := w.sim.state(t)
	pos := before.Positions["pos-a"]
	if pos.InRange {
		t.Fatalf("pos-a in range before the run: %+v", pos)
	}
	cfg := w.config(t, "rebalance", []string{rebalance})
	w.once(t, cfg)
	after := w.sim.state(t)
	w.landedOnce(t, cfg, after, map[string]string{"rebalance-dex-a": pos.Mint})
	moved := after.Positions["pos-a"]
	spacing := int32(moved.TickSpacing)
	centre := (moved.LowerTick + moved.UpperTick) / 2
	switch {
	case !moved.InRange || moved.LowerTick == pos.LowerTick:
		t.Errorf("pos-a [%d, %d) at tick %d after the run, want a new range holding the tick", moved.LowerTick, moved.UpperTick, moved.PoolTick)
	case moved.LowerTick%spacing != 0 || moved.UpperTick%spacing != 0:
		t.Errorf("pos-a [%d, %d) is not aligned to the tick spacing %d", moved.LowerTick, moved.UpperTick, spacing)
	case abs(centre-moved.PoolTick) > spacing:
		t.Errorf("pos-a [%d, %d) is not centred on tick %d", moved.LowerTick, moved.UpperTick, moved.PoolTick)
	case moved.Liquidity != pos.Liquidity:
		t.Errorf("pos-a liquidity %s → %s, want unchanged", pos.Liquidity, moved.Liquidity)
	}
}

func abs(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// claimWithdrawalLands runs claim-withdrawals.yaml once r-full is filled (20s), then again.
func claimWithdrawalLands(t *testing.T, w *workspace) {
	before := w.sim.state(t)
	full := before.Requests["usdc-earn/r-full"]
	if !full.Open || full.Filled != rFullAmount {
		t.Fatalf("r-full before the run: %+v, want open and fully filled", full)
	}
	cfg := w.config(t, "claim", []string{claimWithdrawals})
	w.once(t, cfg)
	after := w.sim.state(t)
	w.landedOnce(t, cfg, after, map[string]string{"claim-earn-withdrawals": full.Address})
	for _, tx := range after.Signed[len(before.Signed):] {
		if tx.BundleID == "" {
			t.Errorf("claim transaction %s landed outside a bundle", tx.Signature)
		}
	}
	claimed, partial := after.Requests["usdc-earn/r-full"], after.Requests["usdc-earn/r-partial"]
	if claimed.Open || claimed.Claimed != rFullAmount {
		t.Errorf("r-full after the run: %+v, want claimed %d and closed", claimed, rFullAmount)
	}
	if !partial.Open || partial.Claimed != 0 {
		t.Errorf("r-partial after the run: %+v, want it waiting, open", partial)
	}
	if got := after.Wallet.Tokens["USDC"] - before.Wallet.Tokens["USDC"]; got != rFullAmount {
		t.Errorf("wallet received %d USDC units, want %d", got, rFullAmount)
	}

	w.once(t, cfg)
	again := w.sim.state(t)
	w.nothingNew(t, cfg, again)
	if again.Wallet.Tokens["USDC"] != after.Wallet.Tokens["USDC"] {
		t.Errorf("second run: wallet USDC %d → %d, want no second payment", after.Wallet.Tokens["USDC"], again.Wallet.Tokens["USDC"])
	}
}

// claimFeesLands runs claim-fees.yaml once 17 USDC of fees are owed (25s) to a position that was
// never touched after they accrued.
func claimFeesLands(t *testing.T, w *workspace) {
	before := w.sim.state(t)
	pos := before.Positions["pos-b"]
	if pos.FeesOwed1 != posBFeesUSDC || pos.FeesOwed0 != posBFeesSOL {
		t.Fatalf("pos-b fees owed %d/%d, want %d/%d", pos.FeesOwed0, pos.FeesOwed1, posBFeesSOL, posBFeesUSDC)
	}
	// Never touched since it opened: the account still stores 2 USDC, under the 10 USDC minimum, so
	// only the owed figure computed from the pool and tick arrays makes this claim.
	if pos.FeesStored1 != 2*usdc {
		t.Fatalf("pos-b stores %d USDC units, want 2 USDC", pos.FeesStored1)
	}
	cfg := w.config(t, "fees", []string{claimFees})
	w.once(t, cfg)
	after := w.sim.state(t)
	w.landedOnce(t, cfg, after, map[string]string{"claim-fees-dex-b": pos.Mint})
	if got := after.Positions["pos-b"]; got.FeesOwed0 != 0 || got.FeesOwed1 != 0 || got.FeesStored0 != 0 || got.FeesStored1 != 0 {
		t.Errorf("pos-b fees owed %d/%d, stored %d/%d after the claim, want nothing", got.FeesOwed0, got.FeesOwed1, got.FeesStored0, got.FeesStored1)
	}
	if got := after.Wallet.Tokens["USDC"] - before.Wallet.Tokens["USDC"]; got != posBFeesUSDC {
		t.Errorf("wallet received %d USDC units of fees, want %d", got, posBFeesUSDC)
	}
	if got := after.Wallet.Tokens["SOL"] - before.Wallet.Tokens["SOL"]; got != posBFeesSOL {
		t.Errorf("wallet received %d SOL units of fees, want %d", got, posBFeesSOL)
	}
}

// journalMatchesChain checks the whole journal against the chain: exactly the six landed actions,
// each signature confirmed without error by getSignatureStatuses, and no other transaction signed by
// the wallet but one journaled tip, of the one bundle.
func journalMatchesChain(t *testing.T, w *workspace) {
	st := w.sim.state(t)
	acts := w.history(t, w.last)
	policies := map[string]int{}
	var sigs []solana.Signature
	for _, a := range acts {
		policies[a.Policy]++
		for _, s := range a.Signatures {
			sigs = append(sigs, solana.MustSignatureFromBase58(s))
		}
	}
	want := map[string]int{"track-best-quote": 1, "sweep-idle-principal": 1, "auto-repay": 1, "rebalance-dex-a": 1,
		"claim-earn-withdrawals": 1, "claim-fees-dex-b": 1}
	if len(acts) != 6 || !maps.Equal(policies, want) {
		t.Errorf("journal holds %v, want one action each of %v", policies, want)
	}
	if tips := w.sim.checkSignedJournaled(t, st.Signed, acts); len(tips) != 1 {
		t.Errorf("tips %v landed, want the one of the one bundle", tips)
	}
	res, err := rpc.New(w.sim.urls.RPC).GetSignatureStatuses(t.Context(), true, sigs...)
	if err != nil {
		t.Fatalf("getSignatureStatuses: %v", err)
	}
	for i, s := range res.Value {
		if s == nil || s.Err != nil || s.ConfirmationStatus == rpc.ConfirmationStatusProcessed {
			t.Errorf("signature %s: status %+v, want confirmed without error", sigs[i], s)
		}
	}
}
