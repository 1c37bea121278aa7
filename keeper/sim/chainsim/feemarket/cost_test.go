package feemarket

import (
	"testing"

	"github.com/gagliardetto/solana-go"
)

// TestPriority checks the scheduler's priority against hand computation:
// a load transaction of 200,000 units at 100,000 micro-lamports costs
// 720 + 2 × 300 + 14 / 4 + 200,000 + 2,048 × 8 = 217,707 units and leaves
// the leader 20,000 + 2,500 lamports.
func TestPriority(t *testing.T) {
	c := loadCost(200_000, 100_000, nil)
	if c.Total() != 217_707 || c.Priority != 22_500*1_000_000/217_708 {
		t.Fatalf("cost %d, priority %d; want 217707 and %d", c.Total(), c.Priority, 22_500*1_000_000/217_708)
	}
	if small := loadCost(100_000, 100_000, nil); small.Priority <= c.Priority {
		t.Fatalf("at the same price a smaller transaction ranks %d, the larger %d: want it higher (the base fee weighs more)", small.Priority, c.Priority)
	}
	if free := loadCost(200_000, 0, nil); free.Priority != 2_500*1_000_000/217_708 {
		t.Fatalf("a transaction paying no priority fee ranks %d, want the base fee's share", free.Priority)
	}
}

func TestTracker(t *testing.T) {
	hot, cold := []solana.PublicKey{{1}}, []solana.PublicKey{{2}}
	tr := NewTracker(BlockLimits{Block: 100, WritableAccount: 60})
	if tr.Fits(61, nil) {
		t.Fatal("a transaction costing more than the account limit fits")
	}
	tr.Add(40, hot)
	if tr.Fits(21, hot) || !tr.Fits(20, hot) || !tr.Fits(60, cold) {
		t.Fatal("the account limit")
	}
	tr.Add(50, cold)
	if tr.Fits(11, nil) || !tr.Fits(10, nil) {
		t.Fatal("the block limit")
	}
}
