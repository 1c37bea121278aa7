package keeper

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim"
	"github.com/keeper-project/keeper/policies"
	"github.com/keeper-project/keeper/signer"
)

// congested is the default scenario with a competing load write-locking
// the given accounts from 1 s on: other users bid 50,000 to 400,000
// micro-lamports per unit, so the clearing price is about 100,000 and a
// transaction bidding nothing is accepted and never lands.
func congested(tb testing.TB, accounts string) simOptions {
	tb.Helper()
	sc, err := sim.ParseScenario("congested.yaml", append(sim.DefaultScenarioYAML(), []byte(`
  - at: 1s
    congestion: {accounts: [`+accounts+`], prices: [50000, 100000, 400000]}
`)...))
	if err != nil {
		tb.Fatalf("ParseScenario: %v", err)
	}
	return simOptions{scenario: sc}
}

// useRepay writes the USDC auto-repay policy with submit set to submit.
func (w *simWorld) useRepay(tb testing.TB, submit string) {
	tb.Helper()
	w.useUSDCRepay(tb)
	w.rewritePolicy(tb, "auto-repay.yaml", "submit: { mode: rpc }", submit)
}

// rewritePolicy replaces old by new in a policy file of the world.
func (w *simWorld) rewritePolicy(tb testing.TB, name, old, new string) {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(w.cfg.Dir, "policies", name))
	data := string(raw)
	if err != nil || !strings.Contains(data, old) {
		tb.Fatalf("policy %s lacks %q (err %v)", name, old, err)
	}
	w.writePolicy(tb, name, strings.Replace(data, old, new, 1))
}

// landedTx decodes the signed transaction of an attempt's first signature.
func landedTx(tb testing.TB, at journal.Attempt) *signer.Tx {
	tb.Helper()
	raw, err := base64.StdEncoding.DecodeString(at.Signatures[0].Transaction)
	if err != nil {
		tb.Fatal(err)
	}
	tx, err := signer.DecodeWire(base64.StdEncoding.EncodeToString(raw))
	if err != nil {
		tb.Fatalf("decode the signed transaction: %v", err)
	}
	return tx
}

// TestRepayUnderCongestionLandsPriced: with the loan and the wallet under a
// competing load, the repay lands in its first attempt, priced through the
// build (keeper's ComputeBudget instructions as setupIxs), its limit sized
// from the simulation, its price the fee market's p75 (at most 1.2 × it),
// and the priority fee journaled in the attempt's fee, which the daily fee
// cap counts. Keeper before pricing sent it at no price: it never landed.
func TestRepayUnderCongestionLandsPriced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, congested(t, "repay-me, $wallet"))
		w.useRepay(t, "submit: { mode: auto }")
		k := w.open(t, "")
		w.advance(t, 15*time.Second)
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatalf("RunOnce: %v", err)
		}
		acts := k.actionsOf(t, "auto-repay")
		if len(acts) != 1 || acts[0].State != journal.StateLanded || len(acts[0].Attempts) != 1 {
			t.Fatalf("actions %+v, want one landed in its first attempt", acts)
		}
		at := acts[0].Attempts[0]
		tx := landedTx(t, at)
		b := tx.Budget()
		if !b.HasPrice || b.Price == 0 || !b.HasLimit {
			t.Fatalf("landed repay's compute budget %+v, want keeper's price and limit", b)
		}
		sig := solana.MustSignatureFromBase58(at.Signatures[0].Signature)
		x, ok := w.sim.Chain().Ledger.Transaction(sig)
		if !ok || x.Err != nil {
			t.Fatalf("repay on chain %v, error %v", ok, x.Err)
		}
		if uint64(b.Limit) < x.UnitsConsumed || uint64(b.Limit) > x.UnitsConsumed*13/10 {
			t.Errorf("compute-unit limit %d for %d units consumed: want it sized from the simulation (units × a 10 %% margin)", b.Limit, x.UnitsConsumed)
		}
		if b.Limit >= signer.MaxComputeUnitLimit {
			t.Errorf("compute-unit limit %d, want it far under the runtime's maximum", b.Limit)
		}
		base := uint64(5000 * len(tx.Signers()))
		prio := (uint64(b.Limit)*b.Price + 999_999) / 1_000_000
		if at.FeeLamports != base+prio || x.Fee != base+prio {
			t.Errorf("journaled fee %d, charged %d, want base %d + priority %d", at.FeeLamports, x.Fee, base, prio)
		}
		h, _, err := historyAndResumable(t.Context(), k.journal, &policies.Policy{Name: "auto-repay"}, time.Now())
		if err != nil || h.FeesToday != base+prio {
			t.Errorf("fees today %d (err %v), want the priority fee counted: %d", h.FeesToday, err, base+prio)
		}
	})
}

// TestFeeMarketAboveTheCapPaysNothing: a policy whose compute-unit price
// cap is under the fee market's price ends its repay at once with an error
// naming the cap, the market's price and the accounts it was measured on,
// counts it in keeper_price_above_cap_total, and nothing leaves the wallet.
// Keeper before pricing sent the repay unpriced and paid for nothing that
// landed; it never said why.
func TestFeeMarketAboveTheCapPaysNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, congested(t, "repay-me, $wallet"))
		w.useRepay(t, "submit: { mode: auto, max_compute_unit_price: 1000 }")
		before := w.sim.Chain().State.Balance(w.wallet())
		k := w.open(t, "")
		w.advance(t, 15*time.Second)
		_ = k.RunOnce(t.Context()) // the failed action is the run's error
		acts := k.actionsOf(t, "auto-repay")
		if len(acts) != 1 || acts[0].State != journal.StateFailed || acts[0].Rule != journal.RulePriceAboveCap {
			t.Fatalf("actions %+v, want one failed by %s", acts, journal.RulePriceAboveCap)
		}
		loan := w.address(t, "loan", "repay-me").String()
		for _, want := range []string{"cap 1000", "micro-lamports per compute unit", loan, w.wallet().String()} {
			if !strings.Contains(acts[0].Detail, want) {
				t.Errorf("detail %q lacks %q", acts[0].Detail, want)
			}
		}
		if n := len(acts[0].Attempts[0].Signatures); n != 0 {
			t.Errorf("%d transactions signed, want none", n)
		}
		after := w.sim.Chain().State.Balance(w.wallet())
		if after != before {
			t.Errorf("wallet %d → %d lamports, want nothing paid", before, after)
		}
		if got := testutil.ToFloat64(k.metrics.PriceAboveCap.WithLabelValues("auto-repay")); got != 1 {
			t.Errorf("keeper_price_above_cap_total = %v, want 1", got)
		}
	})
}

// TestCosignedAnswerLandsByBundleUnderCongestion: claim-fees' answer is
// co-signed by the market and its endpoint takes no setup instructions, so
// keeper may not price it. With its accounts contested, mode auto sends
// the market's message byte for byte as a Jito bundle, tipped from the tip
// floor; the tip is journaled and counted with the fees of the day. Keeper
// before pricing sent it by RPC at no price: it never landed.
func TestCosignedAnswerLandsByBundleUnderCongestion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, congested(t, "$wallet"))
		w.usePolicies(t, "claim-fees.yaml")
		k := w.open(t, "")
		w.advance(t, 25*time.Second)
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatalf("RunOnce: %v", err)
		}
		acts := k.actionsOf(t, "claim-fees-dex-b")
		if len(acts) != 1 || acts[0].State != journal.StateLanded {
			t.Fatalf("actions %+v, want one landed", acts)
		}
		at := acts[0].Attempts[len(acts[0].Attempts)-1]
		if at.Mode != journal.ModeBundle || at.TipLamports == 0 {
			t.Fatalf("landed by %s with a tip of %d, want a tipped bundle", at.Mode, at.TipLamports)
		}
		built, err := base64.StdEncoding.DecodeString(at.Transactions[0])
		if err != nil {
			t.Fatal(err)
		}
		if got := landedTx(t, at).MessageBytes(); !bytes.Equal(got, built) {
			t.Error("the landed message differs from the market's answer")
		}
		h, _, err := historyAndResumable(t.Context(), k.journal, &policies.Policy{Name: "claim-fees-dex-b"}, time.Now())
		if err != nil || h.FeesToday != at.FeeLamports+at.TipLamports || at.FeeLamports == 0 {
			t.Errorf("fees today %d (err %v), want fee %d + tip %d", h.FeesToday, err, at.FeeLamports, at.TipLamports)
		}
	})
}
