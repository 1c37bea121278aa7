package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/ws"

	"github.com/keeper-project/keeper/keeper/prices"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
)

// TestPriceMoveNotifiesAtItsSlot: a price_move at slot 20 rewrites SOL's Pyth account when the chain
// reaches slot 20 (before the default scenario's SOL event at 10 s), however far the clock jumps, so a subscriber of that account is notified once,
// at slot 20, with the moved price; the market prices SOL at it too, and the pusher does not push
// it again.
func TestPriceMoveNotifiesAtItsSlot(t *testing.T) {
	sc, err := ParseScenario("move.yaml", []byte(strings.Replace(string(DefaultScenarioYAML()), "\nevents:\n", `
events:
  - at_slot: 20
    price_move: {mint: SOL, by: -0.05}
`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{Scenario: sc})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, err := ws.Connect(ctx, "ws"+strings.TrimPrefix(e.urls.RPC, "http"))
	if err != nil {
		t.Fatalf("ws.Connect: %v", err)
	}
	defer func() {
		cl.Close()
		if err := e.sim.chain.Pubsub.WaitSubscriptions(ctx, 0); err != nil {
			t.Error(err)
		}
	}()
	_, account := pythOf(t, e, "SOL")
	sub, err := cl.AccountSubscribeWithOpts(account, rpc.CommitmentConfirmed, solana.EncodingBase64)
	if err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	if err := e.sim.chain.Pubsub.WaitSubscriptions(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.Events().Advance(24 * chainsim.SlotDuration); err != nil { // one jump past slot 20
		t.Fatal(err)
	}
	got, err := sub.Recv(ctx)
	if err != nil {
		t.Fatalf("recv: %v", err)
	}
	u, err := prices.DecodeUpdate(got.Value.Data.GetBinary())
	if err != nil {
		t.Fatal(err)
	}
	if got.Context.Slot != 20 || u.PostedSlot != 20 || !near(u.Value(), 142.5) ||
		!u.PublishTime.Equal(testStart.Add(20*chainsim.SlotDuration)) {
		t.Fatalf("notification at slot %d: %+v; want slot 20, price 142.5", got.Context.Slot, u)
	}
	if p, _ := e.sim.w.Price(e.sim.w.MintBySym["SOL"].Address); !near(p, 142.5) {
		t.Errorf("market SOL price = %v, want 142.5", p)
	}
	if now, _ := pythOf(t, e, "SOL"); now.PostedSlot != 20 {
		t.Errorf("SOL pushed again at slot %d after the move", now.PostedSlot)
	}
}

// TestPriceMoveNeedsAtSlotAndAFeed: a price_move without at_slot, on a mint without a feed or by -1
// or less is refused at load time.
func TestPriceMoveNeedsAtSlotAndAFeed(t *testing.T) {
	for _, tc := range []struct{ event, want string }{
		{"  - at: 10s\n    price_move: {mint: SOL, by: 0.1}\n", "give at_slot"},
		{"  - at_slot: 5\n    price_move: {mint: SOL, by: -1}\n", "above -1"},
		{"  - at_slot: 5\n    at: 2s\n    oracle: {SOL: 1}\n", "not both"},
	} {
		sc, err := ParseScenario("bad.yaml", []byte(strings.Replace(string(DefaultScenarioYAML()), "\nevents:\n", "\nevents:\n"+tc.event, 1)))
		if err == nil {
			_, err = New(Options{Scenario: sc, Clock: chainsim.NewManualClock(testStart)})
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.event, err, tc.want)
		}
	}
}
