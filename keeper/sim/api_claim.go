package sim

import (
	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/txbuild"
)

// withdrawClaim serves E10 for a fully filled request of the user's own. txBase64s holds full wire
// transactions (the user's signature slot empty, the co-signer's filled) to be sent in order as one
// bundle: when the wallet has no token account for the vault's mint, a first transaction creates it;
// the last one claims. A claimed request answers 400 "request account not found".
func (a *earnAPI) withdrawClaim(c *call, q apiwire.WithdrawClaimRequest) (any, error) {
	for _, f := range []struct{ name, v string }{{"address", q.Address}, {"wallet", q.Wallet}, {"requestId", q.RequestID}} {
		if f.v == "" {
			return nil, apiwire.BadRequest("%s is required", f.name)
		}
	}
	v, err := a.earnVault(q.Address, q.Provider)
	if err != nil {
		return nil, err
	}
	if q.Wallet != c.wallet.String() {
		return nil, apiwire.Unauthorized("wallet %s does not match the %s header %s", q.Wallet, headerWallet, c.wallet)
	}
	r, err := a.claimableRequest(v, q)
	if err != nil {
		return nil, err
	}
	mint := v.Mint.Address
	claim := txbuild.Instruction{Program: ids.EarnProgramID, Data: []byte{instr.EarnOpClaim}, Accounts: []solana.AccountMeta{
		txbuild.Meta(c.wallet, true, true), txbuild.Meta(ids.CoSigner(), true, false), txbuild.Meta(r.Address, false, true), txbuild.Meta(v.Address, false, false),
		txbuild.Meta(txbuild.Ata(v.Address, mint), false, true), txbuild.Meta(txbuild.Ata(c.wallet, mint), false, true), txbuild.Meta(mint, false, false),
		txbuild.Meta(solana.TokenProgramID, false, false)}}
	groups := [][]txbuild.Instruction{{claim}}
	if _, exists := a.chain.State.Account(txbuild.Ata(c.wallet, mint)); !exists {
		groups = [][]txbuild.Instruction{{txbuild.CreateATAIdempotent(c.payer, c.wallet, mint)}, {claim}}
	}
	txs, err := a.tx.build(c, mint, groups...)
	if err != nil {
		return nil, err
	}
	amount := apiwire.Amount(r.Filled)
	out := apiwire.EarnTxResponse{Action: apiwire.EarnActionWithdrawClaim, Address: q.Address, Wallet: q.Wallet,
		RequestID: q.RequestID, Amount: &amount, TxBase64s: make([]string, len(txs))}
	for i, t := range txs {
		out.TxBase64s[i] = t.WireBase64()
	}
	return out, nil
}

// claimableRequest returns the request a claim names, checking that it is the wallet's, unclaimed and
// fully filled.
func (a *earnAPI) claimableRequest(v *programs.Earn, q apiwire.WithdrawClaimRequest) (*programs.Request, error) {
	k, err := solana.PublicKeyFromBase58(q.RequestID)
	if err != nil {
		return nil, apiwire.BadRequest("requestId %q is not a base58 address", q.RequestID)
	}
	r, ok := a.w.Requests[k]
	if !ok || r.Vault != v {
		return nil, apiwire.BadRequest("unknown withdrawal request %s for earn vault %s", q.RequestID, q.Address)
	}
	st, open := a.accts.request(r)
	switch {
	case !open:
		return nil, apiwire.BadRequest("request account not found: %s", q.RequestID)
	case r.Wallet.String() != q.Wallet:
		return nil, apiwire.BadRequest("request %s was opened by another wallet", q.RequestID)
	case st.Filled < st.Requested:
		return nil, apiwire.BadRequest("request %s is filled %d of %d; only a fully filled request can be claimed", q.RequestID, st.Filled, st.Requested)
	}
	return r, nil
}
