package sim

import "github.com/keeper-project/keeper/keeper/market"

// queueAnswer returns the withdrawal-queue answer q under the member names of the scenario's
// market.withdrawal_queue_fields: q itself when they are the assumed names, else the same members
// renamed.
func (s *Sim) queueAnswer(q market.WithdrawalQueue) any {
	f := s.market.WithdrawalQueueFields.Names()
	if f == market.DefaultWithdrawalQueueFields() {
		return q
	}
	requests := make([]map[string]any, len(q.Requests))
	for i, r := range q.Requests {
		requests[i] = map[string]any{
			f.RequestID: r.RequestID, f.Wallet: r.Wallet, f.Requested: r.RequestedAmount, f.Filled: r.FilledAmount,
			f.Claimed: r.ClaimedAmount, f.Cancelled: r.Cancelled, f.CreatedTime: r.CreatedTime,
		}
	}
	return map[string]any{"address": q.Address, f.Requests: requests}
}
