package genesis

import (
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// market checks the market's packing settings and the names it answers the withdrawal queue with.
func (c *lendingCompiler) market() {
	m := c.sc.Market
	if m.UpdateItemsPerTransaction < 0 {
		c.failAt(p("market", "update_items_per_transaction"), "update_items_per_transaction must not be negative (got %d)", m.UpdateItemsPerTransaction)
	}
	if m.DropUpdateStep == 1 || m.DropUpdateStep < 0 || m.DropUpdateStep > 255 {
		c.failAt(p("market", "drop_update_step"), "drop_update_step must be a later step of a split update, 2 to 255 (got %d)", m.DropUpdateStep)
	}
	if err := QueueFields(m.WithdrawalQueueFields).Validate(); err != nil {
		c.failAt(p("market", "withdrawal_queue_fields"), "%v", err)
	}
}

// QueueFields returns the member names of the withdrawal-queue answer the scenario asks for, the
// assumed ones where it leaves a key empty.
func QueueFields(q scenario.QueueFieldsSpec) apiwire.WithdrawalQueueFields {
	return apiwire.WithdrawalQueueFields{Requests: q.Requests, RequestID: q.RequestID, Wallet: q.Wallet, Requested: q.Requested,
		Filled: q.Filled, Claimed: q.Claimed, Cancelled: q.Cancelled, CreatedTime: q.CreatedTime}.WithDefaults()
}
