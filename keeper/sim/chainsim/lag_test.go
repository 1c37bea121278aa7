package chainsim

import (
	"context"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/inject"
)

// TestLaggingNodeReadsAccountsOfItsSlot: a node 5 slots behind answers
// account reads from the accounts as they were at the end of the slot it has
// reached, with that context slot, and refuses a read whose minContextSlot
// it has not reached with -32016 and the slot it is at, as agave does.
func TestLaggingNodeReadsAccountsOfItsSlot(t *testing.T) {
	const lag = 5
	c, clk := newChain(t, Options{Faults: Faults{RPC: inject.ServiceFaults{Methods: map[string]inject.MethodFaults{
		"getMultipleAccounts": {LagSlots: lag}, "getBalance": {LagSlots: lag}, "getAccountInfo": {LagSlots: lag},
	}}}})
	cl := rpcClient(t, c)
	ctx := context.Background()
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 10_000_000)
	advanceSlots(clk, 2*lag)

	if _, err := c.SendTransaction(raw(t, transfer(t, alice, bob, 1_000_000, latest(c)))); err != nil {
		t.Fatalf("send: %v", err)
	}
	landed := c.Ledger.Slot()
	for step := range lag + 1 {
		seen := step == lag // the node reaches the landing slot lag slots later
		multi, err := cl.GetMultipleAccountsWithOpts(ctx, []solana.PublicKey{bob}, &rpc.GetMultipleAccountsOpts{Commitment: rpc.CommitmentProcessed})
		if err != nil {
			t.Fatalf("step %d: GetMultipleAccounts: %v", step, err)
		}
		if got := multi.Value[0] != nil; got != seen {
			t.Fatalf("step %d (slot %d, landed at %d): bob's account present = %v, want %v", step, c.Ledger.Slot(), landed, got, seen)
		}
		if want := c.Ledger.Slot() - lag; multi.Context.Slot != want {
			t.Fatalf("step %d: context slot %d, want %d", step, multi.Context.Slot, want)
		}
		bal, err := cl.GetBalance(ctx, bob, rpc.CommitmentProcessed)
		if err != nil || (bal.Value == 1_000_000) != seen {
			t.Fatalf("step %d: GetBalance = %+v, %v; landed seen %v", step, bal, err, seen)
		}
		if !seen {
			advanceSlots(clk, 1)
		}
	}

	behind := landed + 1
	_, err := cl.GetMultipleAccountsWithOpts(ctx, []solana.PublicKey{bob}, &rpc.GetMultipleAccountsOpts{Commitment: rpc.CommitmentProcessed, MinContextSlot: &behind})
	rerr := rpcErr(t, err)
	if data, _ := rerr.Data.(map[string]any); rerr.Code != -32016 || rerr.Message != "Minimum context slot has not been reached" || data["contextSlot"] == nil {
		t.Fatalf("read with minContextSlot %d: %d %q %v, want -32016 with the context slot", behind, rerr.Code, rerr.Message, rerr.Data)
	}
	advanceSlots(clk, 1)
	if _, err := cl.GetMultipleAccountsWithOpts(ctx, []solana.PublicKey{bob}, &rpc.GetMultipleAccountsOpts{Commitment: rpc.CommitmentProcessed, MinContextSlot: &behind}); err != nil {
		t.Fatalf("once the node reached slot %d: %v", behind, err)
	}
}

// TestPastStatesReachTheFinalizedBlock: the snapshots kept reach back to the finalized block (the
// bank of a simulation at finalized) and no further, and a lag longer than that extends them.
func TestPastStatesReachTheFinalizedBlock(t *testing.T) {
	c, clk := newChain(t, Options{})
	alice := newKey("alice")
	for range 3 * finalizedDepth {
		advanceSlots(clk, 1)
		mustFund(t, c, alice.PublicKey(), 1)
	}
	if n := len(c.State.past.recs); n < finalizedDepth || n > finalizedDepth+2 {
		t.Fatalf("%d snapshots kept without a lagging method, want the %d slots to the finalized block", n, finalizedDepth)
	}
	if err := c.SetFaults(Faults{RPC: inject.ServiceFaults{All: inject.MethodFaults{LagSlots: 2 * finalizedDepth}}}); err != nil {
		t.Fatal(err)
	}
	for range 3 * finalizedDepth {
		advanceSlots(clk, 1)
		mustFund(t, c, alice.PublicKey(), 1)
	}
	if n := len(c.State.past.recs); n < 2*finalizedDepth || n > 2*finalizedDepth+2 {
		t.Fatalf("%d snapshots kept for a lag of %d slots", n, 2*finalizedDepth)
	}
}
