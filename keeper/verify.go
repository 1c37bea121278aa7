package keeper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/policies"
	"github.com/keeper-project/keeper/signer"
)

// How a landed action's target is read again (see verifyLanded): the market
// may answer from before the landing for a moment, so a read that still
// shows the target as the plan saw it is tried once more a slot later. The
// check holds up the next action of the same pass, so it is kept short:
// two reads at most, within verifyTimeout; a market that lags more is
// reported as such ("→ unknown" or the unchanged figure).
const (
	verifyTries   = 2
	verifyWait    = 400 * time.Millisecond
	verifyTimeout = 2 * time.Second
)

// verifyLanded reads the target of a landed action again and says what
// changed, for the journal's detail, the log line and the notification:
// for a repay, the ledger's health before → after, and "health still low"
// when it is still under the policy's trigger (the next run may then act
// again, within the policy's caps); for a rebalance, the position's range
// against the pool's tick; for a fee claim, the fees owed; for a withdrawal
// claim, whether the request shows paid out. "" when the kind has no check.
func (k *Keeper) verifyLanded(ctx context.Context, p action.Plan) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), verifyTimeout)
	defer cancel()
	switch p.Kind {
	case signer.KindRepay:
		return k.verifyRepay(ctx, p)
	case signer.KindRebalance:
		return k.verifyRebalance(ctx, p)
	case signer.KindClaimFees:
		return k.verifyClaimFees(ctx, p)
	case signer.KindClaimWithdrawals:
		return k.verifyClaimWithdrawal(ctx, p)
	}
	return ""
}

// repaySeen is what a repay plan's inputs say of the loan it decided from.
type repaySeen struct {
	Ledger       int     `json:"ledger"`
	Mode         string  `json:"mode"`
	Health       float64 `json:"health"`
	WriteVersion int64   `json:"writeVersion"`
	LastTxn      string  `json:"lastTxn"`
}

// verifyRepay is verifyLanded for a repay.
func (k *Keeper) verifyRepay(ctx context.Context, p action.Plan) string {
	var seen repaySeen
	if err := json.Unmarshal(p.Seen, &seen); err != nil {
		return fmt.Sprintf("health after: unknown (the plan's inputs: %v)", err)
	}
	item, err := k.loanAfter(ctx, p.Target, seen)
	if err != nil {
		return fmt.Sprintf("health %.3f → unknown (%v)", seen.Health, err)
	}
	after, err := policies.LedgerHealth(item, seen.Ledger, k.now(), k.obs.tokens())
	if err != nil {
		return fmt.Sprintf("health %.3f → unknown (%v)", seen.Health, err)
	}
	msg := fmt.Sprintf("health %.3f → %.3f", seen.Health, after)
	if trigger, ok := k.repayTrigger(p.Policy); ok && after < trigger {
		msg = fmt.Sprintf("health still low: %.3f → %.3f, under the trigger %.3f; the next run may act again", seen.Health, after, trigger)
	}
	return msg
}

// loanAfter reads loan address from the market until the answer shows a
// change since seen (its write version or last transaction), or the tries
// run out; then it returns the last answer.
func (k *Keeper) loanAfter(ctx context.Context, address string, seen repaySeen) (market.LoanItem, error) {
	var item market.LoanItem
	var err error
	for try := range verifyTries {
		if try > 0 {
			select {
			case <-ctx.Done():
				return item, errors.Join(err, ctx.Err())
			case <-time.After(verifyWait):
			}
		}
		item, err = k.readLoan(ctx, address)
		if err == nil && (item.Loan.WriteVersion != seen.WriteVersion || item.Loan.LastInteractedTxn != seen.LastTxn) {
			return item, nil
		}
	}
	return item, err
}

// readLoan reads one loan by its address.
func (k *Keeper) readLoan(ctx context.Context, address string) (market.LoanItem, error) {
	var found *market.LoanItem
	err := k.market.LoanPages(ctx, market.LoansQuery{LoanAddresses: []string{address}}, func(_ int, p *market.LoansPage) error {
		for i := range p.Items {
			if p.Items[i].Loan.Address == address {
				found = &p.Items[i]
			}
		}
		return nil
	})
	switch {
	case err != nil:
		return market.LoanItem{}, err
	case found == nil:
		return market.LoanItem{}, fmt.Errorf("the market no longer lists loan %s", address)
	}
	return *found, nil
}

// repayTrigger returns the trigger_health of the loaded policy name.
func (k *Keeper) repayTrigger(name string) (float64, bool) {
	r := k.runners.find(name)
	if r == nil {
		return 0, false
	}
	return r.current().RepayTrigger()
}
