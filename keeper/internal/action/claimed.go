package action

import (
	"context"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// alreadyClaimed reports whether the chain shows the withdrawal request the
// plan claims as claimed: the earn program closes a request's account when
// it pays it out, so an account that is gone (or left without data) was
// claimed. It is asked only after the market refused to build the claim;
// anything unclear is false.
func (a *attempt) alreadyClaimed(ctx context.Context) (string, bool) {
	r := a.p.Request.WithdrawClaim
	if r == nil {
		return "", false
	}
	key, err := solana.PublicKeyFromBase58(r.RequestID)
	if err != nil {
		return "", false
	}
	data, err := a.e.cfg.Submitter.MultipleAccounts(ctx, []solana.PublicKey{key})
	if err != nil || len(data) != 1 || len(data[0]) != 0 {
		return "", false // a request account always holds its state
	}
	return fmt.Sprintf("withdrawal request %s is no longer on chain: it was claimed already", r.RequestID), true
}
