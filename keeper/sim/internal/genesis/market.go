package genesis

// market checks the market's packing settings and the names it answers the withdrawal queue with.
func (c *lendingCompiler) market() {
	m := c.sc.Market
	if m.UpdateItemsPerTransaction < 0 {
		c.failAt(p("market", "update_items_per_transaction"), "update_items_per_transaction must not be negative (got %d)", m.UpdateItemsPerTransaction)
	}
	if m.DropUpdateStep == 1 || m.DropUpdateStep < 0 || m.DropUpdateStep > 255 {
		c.failAt(p("market", "drop_update_step"), "drop_update_step must be a later step of a split update, 2 to 255 (got %d)", m.DropUpdateStep)
	}
	if err := m.WithdrawalQueueFields.Names().Validate(); err != nil {
		c.failAt(p("market", "withdrawal_queue_fields"), "%v", err)
	}
}
