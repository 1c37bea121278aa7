package sim

import (
	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/genesis"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
)

// earnVault resolves an earn vault address and checks the provider.
func (a *earnAPI) earnVault(address, provider string) (*programs.Earn, error) {
	if address == "" {
		return nil, apiwire.BadRequest("address is required")
	}
	if provider != "" && provider != apiwire.ProviderDefault {
		return nil, apiwire.BadRequest("provider %q is not supported (only %s)", provider, apiwire.ProviderDefault)
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
func (a *earnAPI) earnPosition(c *call, q apiwire.EarnPositionRequest) (any, error) {
	v, err := a.earnVault(q.Address, q.Provider)
	if err != nil {
		return nil, err
	}
	wallet, err := solana.PublicKeyFromBase58(q.Wallet)
	if err != nil {
		return nil, apiwire.BadRequest("wallet %q is not a base58 address", q.Wallet)
	}
	out := apiwire.EarnPosition{Address: q.Address, Wallet: q.Wallet, OpenWithdrawalRequests: []apiwire.OpenWithdrawalRequest{}}
	for _, p := range v.Positions {
		if p.Wallet == wallet {
			out.Shares, out.Assets = apiwire.Amount(p.Shares), apiwire.Amount(p.Assets)
		}
	}
	for _, r := range v.Requests {
		if _, open := a.accts.request(r); open && r.Wallet == wallet {
			out.OpenWithdrawalRequests = append(out.OpenWithdrawalRequests, apiwire.OpenWithdrawalRequest{
				OnChainRequestAddr: r.Address.String(), RequestedAmount: apiwire.Amount(r.Requested),
				CreatedTime: apiwire.UnixTime(r.Created)})
		}
	}
	return out, nil
}

// withdrawalQueue serves the withdrawal-queue read: every request of the vault (or of one wallet)
// with its filled amount; a claimed request (its account closed) shows its filled amount as claimed.
// The members carry the scenario's names (queueAnswer).
func (a *earnAPI) withdrawalQueue(c *call, q apiwire.WithdrawalQueueRequest) (any, error) {
	v, err := a.earnVault(q.Address, q.Provider)
	if err != nil {
		return nil, err
	}
	out := apiwire.WithdrawalQueue{Address: q.Address, Requests: []apiwire.WithdrawalRequest{}}
	for _, r := range v.Requests {
		if q.Wallet != "" && q.Wallet != r.Wallet.String() {
			continue
		}
		wr := apiwire.WithdrawalRequest{RequestID: r.Address.String(), Wallet: r.Wallet.String(),
			RequestedAmount: apiwire.Amount(r.Requested), FilledAmount: apiwire.Amount(r.Filled), CreatedTime: apiwire.UnixTime(r.Created)}
		if st, open := a.accts.request(r); open {
			wr.FilledAmount = apiwire.Amount(st.Filled)
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
func (a *earnAPI) queueAnswer(q apiwire.WithdrawalQueue) any {
	f := genesis.QueueFields(a.market.WithdrawalQueueFields)
	if f == apiwire.DefaultWithdrawalQueueFields() {
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
