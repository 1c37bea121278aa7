package keeper

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/squadsim"
	"github.com/keeper-project/keeper/keeper/squads"
	"github.com/keeper-project/keeper/policies"
	"github.com/keeper-project/keeper/signer"
)

// congestionOn is a scenario event turning on, from at, a competing load
// on accounts as congested's: a clearing price of about 100,000
// micro-lamports per unit.
func congestionOn(at, accounts string) string {
	return "  - at: " + at + "\n    congestion: {accounts: [" + accounts + "], prices: [50000, 100000, 400000]}\n"
}

// afterApproval is when the tests that approve turn congestion on: after
// keeper proposed (at 10 s) and the members approved, which the test's
// voters could not do in a congested block.
const afterApproval = "12s"

// approveAll has two voters approve the proposal at index.
func (w *squadsWorld) approveAll(t *testing.T, index uint64) {
	t.Helper()
	for _, v := range w.voters[:2] {
		if err := squadsim.Approve(w.sim.Chain(), w.multisig, index, v); err != nil {
			t.Fatal(err)
		}
	}
}

// wantSized fails unless b is keeper's compute budget, priced, its limit
// sized from the units the transaction sig consumed on chain (a 10 %
// margin), and the fee charged its base fee plus its priority fee.
func wantSized(t *testing.T, w *squadsWorld, what string, b signer.Budget, sig solana.Signature) uint64 {
	t.Helper()
	if !b.HasPrice || b.Price == 0 || !b.HasLimit {
		t.Fatalf("%s's compute budget %+v, want keeper's price and limit", what, b)
	}
	x, ok := w.sim.Chain().Ledger.Transaction(sig)
	if !ok || x.Err != nil {
		t.Fatalf("%s on chain %v, error %v", what, ok, x.Err)
	}
	if uint64(b.Limit) < x.UnitsConsumed || uint64(b.Limit) > x.UnitsConsumed*13/10 {
		t.Errorf("%s's compute-unit limit %d for %d units consumed: want it sized from the simulation", what, b.Limit, x.UnitsConsumed)
	}
	fee := 5000 + (uint64(b.Limit)*b.Price+999_999)/1_000_000
	if x.Fee != fee {
		t.Errorf("%s charged %d lamports, want base 5000 + priority %d", what, x.Fee, fee-5000)
	}
	return fee
}

// TestSquadsExecuteUnderCongestionLandsPriced: keeper proposes before
// any congestion (unpriced: nobody competes), the members approve, and
// then the strategy the vault transaction writes comes under a competing
// load: keeper's execution, which write-locks the strategy, lands priced: its limit sized from the
// simulation, its price the fee market's, its fee journaled on the action
// and counted with the day's fees. Keeper before priced neither: the
// execution was accepted and never landed.
func TestSquadsExecuteUnderCongestionLandsPriced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSquadsWorldWith(t, faults.Faults{}, congestionOn(afterApproval, "alpha"), "")
		k := w.open(t, "")
		w.advance(t, 10*time.Second)
		run := func() {
			if err := k.RunOnce(t.Context()); err != nil {
				t.Fatalf("RunOnce: %v", err)
			}
		}
		run()
		acts := k.actionsOf(t, "track-best-quote")
		if len(acts) != 1 || acts[0].State != journal.StateLanded || len(acts[0].Attempts) != 1 {
			t.Fatalf("actions %+v, want one proposed in its first attempt", acts)
		}
		if b := landedTx(t, acts[0].Attempts[0]).Budget(); len(b.Instructions) != 0 {
			t.Errorf("the proposal, made with nobody competing, carries a compute budget %+v, want none", b)
		}
		createFee := acts[0].Attempts[0].FeeLamports
		w.approveAll(t, 1)
		w.advance(t, 5*time.Second)
		run()
		if p := w.proposal(t, 1); p.Status != squads.StatusExecuted {
			t.Fatalf("proposal on chain is %s after approval, want executed", p.Status)
		}
		if got := solAPY(t, w.simWorld, w.address(t, ids.KindStrategy, "alpha"), 7); got != 92_500 {
			t.Errorf("alpha SOL 7d APY after execution %d cBPS, want 92500", got)
		}
		ps := proposalsOf(t, k)
		if len(ps) != 1 || ps[0].State != journal.ProposalExecuted {
			t.Fatalf("journaled proposals %+v, want #1 executed", ps)
		}
		tx, err := signer.DecodeWire(ps[0].ExecuteTx)
		if err != nil {
			t.Fatal(err)
		}
		fee := wantSized(t, w, "the execution", tx.Budget(), solana.MustSignatureFromBase58(ps[0].ExecuteSig))
		if b := tx.Budget(); b.Instructions[0] != 0 || b.Instructions[1] != 1 {
			t.Errorf("the execution's compute budget is at %v, want it first", b.Instructions)
		}
		acts = k.actionsOf(t, "track-best-quote")
		if got := acts[0].Attempts[0].FeeLamports; got != createFee+fee {
			t.Errorf("journaled fee %d, want the proposal's %d + the execution's %d", got, createFee, fee)
		}
		h, _, err := historyAndResumable(t.Context(), k.journal, &policies.Policy{Name: "track-best-quote"}, time.Now())
		if err != nil || h.FeesToday != createFee+fee {
			t.Errorf("fees today %d (err %v), want %d", h.FeesToday, err, createFee+fee)
		}
	})
}

// TestSquadsProposalUnderCongestionLandsPriced: with the multisig (which
// the proposal's creation write-locks) under a competing load, the
// proposal lands in its first attempt priced, keeper's compute budget
// first, its limit sized from the simulation and its fee journaled. Keeper
// before sent it unpriced: it never landed.
func TestSquadsProposalUnderCongestionLandsPriced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSquadsWorldWith(t, faults.Faults{}, congestionOn("1s", "$multisig"), "")
		k := w.open(t, "")
		w.advance(t, 10*time.Second)
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatalf("RunOnce: %v", err)
		}
		acts := k.actionsOf(t, "track-best-quote")
		if len(acts) != 1 || acts[0].State != journal.StateLanded || len(acts[0].Attempts) != 1 {
			t.Fatalf("actions %+v, want one proposed in its first attempt", acts)
		}
		if p := w.proposal(t, 1); p.Status != squads.StatusActive {
			t.Fatalf("proposal on chain is %s, want active", p.Status)
		}
		at := acts[0].Attempts[0]
		b := landedTx(t, at).Budget()
		fee := wantSized(t, w, "the proposal", b, solana.MustSignatureFromBase58(at.Signatures[0].Signature))
		if b.Instructions[0] != 0 || b.Instructions[1] != 1 {
			t.Errorf("the proposal's compute budget is at %v, want it first", b.Instructions)
		}
		if at.FeeLamports != fee {
			t.Errorf("journaled fee %d, want %d", at.FeeLamports, fee)
		}
	})
}

// TestSquadsFeeMarketAboveTheCap: a proposal-mode policy whose
// compute-unit price cap is under the fee market's price proposes nothing
// when the multisig is contested (the action fails by price-above-cap,
// counted, nothing paid), and when only the strategy is, keeper proposes
// but does not execute: the proposal stays approved, the metric counts
// each execution declined, and keeper pays nothing for one.
func TestSquadsFeeMarketAboveTheCap(t *testing.T) {
	const capped = "    submit: { max_compute_unit_price: 1000 }\n"
	t.Run("proposal", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newSquadsWorldWith(t, faults.Faults{}, congestionOn("1s", "$multisig"), capped)
			before := w.sim.Chain().State.Balance(w.wallet())
			k := w.open(t, "")
			w.advance(t, 10*time.Second)
			_ = k.RunOnce(t.Context()) // the failed action is the run's error
			acts := k.actionsOf(t, "track-best-quote")
			if len(acts) != 1 || acts[0].State != journal.StateFailed || acts[0].Rule != journal.RulePriceAboveCap {
				t.Fatalf("actions %+v, want one failed by %s", acts, journal.RulePriceAboveCap)
			}
			for _, want := range []string{"cap 1000", w.multisig.String()} {
				if !strings.Contains(acts[0].Detail, want) {
					t.Errorf("detail %q lacks %q", acts[0].Detail, want)
				}
			}
			if n := w.transactionIndex(t); n != 0 || len(proposalsOf(t, k)) != 0 {
				t.Errorf("transaction index %d, %d proposals journaled: want nothing proposed", n, len(proposalsOf(t, k)))
			}
			if after := w.sim.Chain().State.Balance(w.wallet()); after != before {
				t.Errorf("wallet %d → %d lamports, want nothing paid", before, after)
			}
			if got := testutil.ToFloat64(k.metrics.PriceAboveCap.WithLabelValues("track-best-quote")); got != 1 {
				t.Errorf("keeper_price_above_cap_total = %v, want 1", got)
			}
		})
	})
	t.Run("execution", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			w := newSquadsWorldWith(t, faults.Faults{}, congestionOn(afterApproval, "alpha"), capped)
			k := w.open(t, "")
			w.advance(t, 10*time.Second)
			if err := k.RunOnce(t.Context()); err != nil {
				t.Fatalf("RunOnce: %v", err)
			}
			w.approveAll(t, 1)
			before := w.sim.Chain().State.Balance(w.wallet())
			w.advance(t, 5*time.Second)
			_ = k.RunOnce(t.Context())
			if p := w.proposal(t, 1); p.Status != squads.StatusApproved {
				t.Fatalf("proposal on chain is %s, want approved (not executed)", p.Status)
			}
			if ps := proposalsOf(t, k); len(ps) != 1 || ps[0].State != journal.ProposalApproved || ps[0].ExecuteTx != "" {
				t.Fatalf("journaled proposals %+v, want #1 approved with no execution signed", ps)
			}
			if after := w.sim.Chain().State.Balance(w.wallet()); after != before {
				t.Errorf("wallet %d → %d lamports, want nothing paid", before, after)
			}
			if got := testutil.ToFloat64(k.metrics.PriceAboveCap.WithLabelValues("track-best-quote")); got < 1 {
				t.Errorf("keeper_price_above_cap_total = %v, want each declined execution counted", got)
			}
		})
	})
}
