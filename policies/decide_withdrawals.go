package policies

import (
	"fmt"

	"github.com/keeper-project/keeper/keeper/market"
)

// claimInputs are what a claim-withdrawals decision used.
type claimInputs struct {
	Vault     string `json:"vault"`
	Requested uint64 `json:"requested"`
	Filled    uint64 `json:"filled"`
}

// claimWithdrawal claims one request when it is fully filled and not yet
// claimed. The provider is left to the market client's configured one.
func (e *evaluator) claimWithdrawal(we *withdrawalEntry, env *withdrawalEnv) {
	f := &we.facts
	if !we.req.Claimable() || !e.when(f.RequestID, env) || !e.ready(f.RequestID) {
		return
	}
	e.plan(Action{
		Target:  f.RequestID,
		Request: Request{WithdrawClaim: &market.WithdrawClaimRequest{Address: f.Vault, Wallet: e.obs.Wallet, RequestID: f.RequestID}},
		Reason: fmt.Sprintf("request %s in earn vault %s is fully filled (%d of %d requested units): claim it",
			shortKey(f.RequestID), shortKey(f.Vault), f.Filled, f.Requested),
	}, claimInputs{Vault: f.Vault, Requested: f.Requested, Filled: f.Filled})
}
