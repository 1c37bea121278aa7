package chain

import (
	"testing"
)

// TestWarmAnswersDecode checks that Warm's canned answers decode whole into the types the action
// path decodes, every nested member filled: a member the canned answer misses, or one renamed in a
// type, would leave its decoder unbuilt until an action needs it.
func TestWarmAnswersDecode(t *testing.T) {
	sim, note, err := warmAnswers()
	if err != nil {
		t.Fatal(err)
	}
	v := sim.Value
	switch {
	case sim.Context.Slot != 7 || v == nil:
		t.Fatalf("simulation %+v", sim)
	case !v.hasBalances() || v.Err != nil || v.UnitsConsumed == nil || *v.UnitsConsumed != 150 || len(v.Logs) != 1:
		t.Errorf("simulation value %+v", v)
	case len(v.Accounts) != 1 || v.Accounts[0] == nil || v.Accounts[0].Lamports != 1 || v.Accounts[0].Data == nil:
		t.Errorf("simulation accounts %+v", v.Accounts)
	case len(v.PreTokenBalances) != 1 || v.PreTokenBalances[0].Owner == nil || v.PreTokenBalances[0].Mint.IsZero() ||
		v.PreTokenBalances[0].UITokenAmount.Amount != "5" || v.PostTokenBalances[0].UITokenAmount.Amount != "4":
		t.Errorf("simulation token balances %+v / %+v", v.PreTokenBalances, v.PostTokenBalances)
	case len(v.LoadedAddresses.Writable) != 1 || v.LoadedAddresses.Readonly == nil:
		t.Errorf("simulation loaded addresses %+v", v.LoadedAddresses)
	}
	if note.Context.Slot != 7 || note.Value.Err == nil {
		t.Errorf("notification %+v", note)
	}
}
