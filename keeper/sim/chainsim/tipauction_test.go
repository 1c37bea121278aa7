package chainsim

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
)

// tipBundle returns a one-transaction bundle in which alice tips tip
// lamports, made unique by memo lamports sent to carol.
func (f *bundleFixture) tipBundle(t *testing.T, tip, memo uint64) []*solana.Transaction {
	t.Helper()
	return []*solana.Transaction{signTx(t, []solana.Instruction{
		system.NewTransferInstruction(memo, f.alice.PublicKey(), f.carol).Build(),
		system.NewTransferInstruction(tip, f.alice.PublicKey(), f.tip).Build(),
	}, latest(f.c), f.alice)}
}

// sendAndSettle sends a bundle and lets the next slot run it; it returns
// the bundle's status.
func (f *bundleFixture) sendAndSettle(t *testing.T, txs []*solana.Transaction) BundleStatus {
	t.Helper()
	id, err := f.send(t, txs, true)
	if err != nil {
		t.Fatalf("sendBundle: %v", err)
	}
	advanceSlots(f.clk, 1)
	return f.c.Bundles.Status(id)
}

// nextSlotWhere advances the clock until the next slot satisfies ok.
func (f *bundleFixture) nextSlotWhere(t *testing.T, ok func(slot uint64) bool) {
	t.Helper()
	for range 200 {
		if ok(f.c.Ledger.Slot() + 1) {
			return
		}
		advanceSlots(f.clk, 1)
	}
	t.Fatal("no such slot in 200")
}

func TestBundlesLandOnlyInJitoLeaderSlots(t *testing.T) {
	f := newBundleFixture(t)
	if err := f.c.Market.SetNonJitoShare(0, 0.5); err != nil {
		t.Fatalf("SetNonJitoShare: %v", err)
	}
	jito := 0
	for s := range uint64(400) {
		if f.c.Market.JitoLeader(s) {
			jito++
		}
		if f.c.Market.JitoLeader(s) != f.c.Market.JitoLeader(s/4*4) {
			t.Fatalf("slot %d: a leader's 4 slots differ", s)
		}
	}
	if jito < 120 || jito > 280 {
		t.Fatalf("%d of 400 slots have a Jito leader, want about half", jito)
	}
	f.nextSlotWhere(t, func(s uint64) bool { return !f.c.Market.JitoLeader(s) })
	st := f.sendAndSettle(t, f.tipBundle(t, 5000, 1))
	if st.State != BundleFailed || !strings.Contains(st.Reason, "does not run the Jito client") {
		t.Fatalf("bundle for a non-Jito leader: %+v, want Failed", st)
	}
	f.nextSlotWhere(t, f.c.Market.JitoLeader)
	if st := f.sendAndSettle(t, f.tipBundle(t, 5000, 2)); st.State != BundleLanded {
		t.Fatalf("bundle for a Jito leader: %+v, want Landed", st)
	}
}

func TestBundleTipAuction(t *testing.T) {
	f := newBundleFixture(t)
	if err := f.c.Market.SetTipLoad(0, &TipLoad{Tips: []uint64{10_000, 50_000}, Bundles: 20, Room: 5}); err != nil {
		t.Fatalf("SetTipLoad: %v", err)
	}
	next := f.c.Ledger.Slot() + 1
	clearing := f.c.Market.ClearingTip(next)
	if clearing <= 10_000 || clearing > 50_001 {
		t.Fatalf("clearing tip %d, want within the competing bids", clearing)
	}
	st := f.sendAndSettle(t, f.tipBundle(t, clearing-1, 1))
	if st.State != BundleFailed || !strings.Contains(st.Reason, "lost the auction") {
		t.Fatalf("tip one lamport under the clearing tip: %+v, want Failed", st)
	}
	clearing = f.c.Market.ClearingTip(f.c.Ledger.Slot() + 1)
	if st := f.sendAndSettle(t, f.tipBundle(t, clearing, 2)); st.State != BundleLanded {
		t.Fatalf("tip at the clearing tip: %+v, want Landed", st)
	}
}

func TestTipFloorReflectsLandedTips(t *testing.T) {
	f := newBundleFixture(t)
	url, hc := serve(t, f.c.Jito().Handler())
	get := func() []wireTipFloor {
		t.Helper()
		resp, err := hc.Get(url + TipFloorPath)
		if err != nil {
			t.Fatalf("GET tip_floor: %v", err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var out []wireTipFloor
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &out) != nil || len(out) != 1 {
			t.Fatalf("GET tip_floor: %d %s", resp.StatusCode, body)
		}
		return out
	}
	if got := get()[0]; got.P50 != 0 || got.EMA50 != 0 {
		t.Fatalf("tip floor with no bundle: %+v, want zeros", got)
	}
	for i, tip := range []uint64{4000, 1000, 3000, 2000} {
		if st := f.sendAndSettle(t, f.tipBundle(t, tip, uint64(i+1))); st.State != BundleLanded {
			t.Fatalf("bundle %d: %+v", i, st)
		}
	}
	got := get()[0]
	// Nearest rank over 1000, 2000, 3000, 4000 lamports; the average of
	// each slot's tip (4000, 1000, 3000, 2000) weights the newest by 0.1.
	want := wireTipFloor{P25: 1e-6, P50: 2e-6, P75: 3e-6, P95: 4e-6, P99: 4e-6}
	ema := 4000.0
	for _, m := range []float64{1000, 3000, 2000} {
		ema = 0.1*m + 0.9*ema
	}
	want.EMA50, want.Time = ema/1e9, got.Time
	if got != want {
		t.Fatalf("tip floor %+v, want %+v", got, want)
	}
	if resp, err := hc.Post(url+TipFloorPath, "application/json", nil); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST tip_floor: %v %v, want 405", resp, err)
	} else {
		resp.Body.Close()
	}
}

// TestTipFloorCountsCompetingWinners: the bids that won their slots are
// landed tips too.
func TestTipFloorCountsCompetingWinners(t *testing.T) {
	f := newBundleFixture(t)
	if err := f.c.Market.SetTipLoad(0, &TipLoad{Tips: []uint64{7000}, Bundles: 3, Room: 2}); err != nil {
		t.Fatalf("SetTipLoad: %v", err)
	}
	advanceSlots(f.clk, 10)
	if got := f.c.Market.TipFloor(); got.P25 != 7000 || got.P99 != 7000 || got.EMA50 != 7000 {
		t.Fatalf("tip floor %+v, want 7000 lamports throughout", got)
	}
}
