package sim

import (
	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
)

// earnVault resolves an earn vault address and checks the provider.
func (a *earnAPI) earnVault(address, provider string) (*programs.Earn, error) {
	if address == "" {
		return nil, apiwire.BadRequest("address is required")
	}
	if provider != "" && provider != api.DefaultPaths().Provider {
		return nil, apiwire.BadRequest("provider %q is not supported (only %s)", provider, api.DefaultPaths().Provider)
	}
	k, err := solana.PublicKeyFromBase58(address)
	if err != nil {
		return nil, apiwire.BadRequest("address %q is not a base58 address", address)
	}
	v, ok := a.w.EarnByAddr[k]
	if !ok {
		return nil, apiwire.BadRequest("unknown earn vault %s", address)
	}
	return v, nil
}

// earnPosition serves the earn-position read: the wallet's shares and assets, and its requests that
// are not claimed yet.
func (a *earnAPI) earnPosition(c *call, q market.EarnPositionRequest) (any, error) {
	v, err := a.earnVault(q.Address, q.Provider)
	if err != nil {
		return nil, err
	}
	wallet, err := solana.PublicKeyFromBase58(q.Wallet)
	if err != nil {
		return nil, apiwire.BadRequest("wallet %q is not a base58 address", q.Wallet)
	}
	out := market.EarnPosition{Address: q.Address, Wallet: q.Wallet, OpenWithdrawalRequests: []market.OpenWithdrawalRequest{}}
	for _, p := range v.Positions {
		if p.Wallet == wallet {
			out.Shares, out.Assets = market.Amount(p.Shares), market.Amount(p.Assets)
		}
	}
	for _, r := range v.Requests {
		if _, open := a.accts.request(r); open && r.Wallet == wallet {
			out.OpenWithdrawalRequests = append(out.OpenWithdrawalRequests, market.OpenWithdrawalRequest{
				OnChainRequestAddr: r.Address.String(), RequestedAmount: market.Amount(r.Requested),
				CreatedTime: market.UnixTime(r.Created)})
		}
	}
	return out, nil
}

// withdrawalQueue serves the withdrawal-queue read: every request of the vault (or of one wallet)
// with its filled amount; a claimed request (its account closed) shows its filled amount as claimed.
// The members carry the scenario's names (queueAnswer).
func (a *earnAPI) withdrawalQueue(c *call, q market.WithdrawalQueueRequest) (any, error) {
	v, err := a.earnVault(q.Address, q.Provider)
	if err != nil {
		return nil, err
	}
	out := market.WithdrawalQueue{Address: q.Address, Requests: []market.WithdrawalRequest{}}
	for _, r := range v.Requests {
		if q.Wallet != "" && q.Wallet != r.Wallet.String() {
			continue
		}
		wr := market.WithdrawalRequest{RequestID: r.Address.String(), Wallet: r.Wallet.String(),
			RequestedAmount: market.Amount(r.Requested), FilledAmount: market.Amount(r.Filled), CreatedTime: market.UnixTime(r.Created)}
		if st, open := a.accts.request(r); open {
			wr.FilledAmount = market.Amount(st.Filled)
		} else {
			wr.ClaimedAmount = wr.FilledAmount
		}
		out.Requests = append(out.Requests, wr)
	}
	return a.queueAnswer(out), nil
}

// queueAnswer returns the withdrawal-queue answer q under the member names of the scenario's
// market.withdrawal_queue_fields: q itself when they are the assumed names, else the same members
// renamed.
func (a *earnAPI) queueAnswer(q market.WithdrawalQueue) any {
	f := a.market.WithdrawalQueueFields.Names()
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
