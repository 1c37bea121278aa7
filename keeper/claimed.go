package keeper

import (
	"context"
	"fmt"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/market"
)

// OutcomeAlreadyDone means the chain shows the action's work done already
// (a withdrawal request claimed before keeper's claim was built); it is
// journaled as final with the reason.
const OutcomeAlreadyDone Outcome = "already_done"

// ruleAlreadyClaimed is the journal rule of a claim the chain shows done.
const ruleAlreadyClaimed = "already-claimed"

// alreadyClaimed reports whether the chain shows the withdrawal request p
// claims as claimed: the earn program closes a request's account when it
// pays it out, so an account that is gone (or left without data) was
// claimed. It is asked only after the market refused to build the claim;
// anything unclear is false.
func (k *Keeper) alreadyClaimed(ctx context.Context, p Plan) (string, bool) {
	r, ok := p.Request.(market.WithdrawClaimRequest)
	if !ok {
		return "", false
	}
	key, err := solana.PublicKeyFromBase58(r.RequestID)
	if err != nil {
		return "", false
	}
	data, err := k.submitter.MultipleAccounts(ctx, []solana.PublicKey{key})
	if err != nil || len(data) != 1 || len(data[0]) != 0 {
		return "", false // a request account always holds its state
	}
	return fmt.Sprintf("withdrawal request %s is no longer on chain: it was claimed already", r.RequestID), true
}
