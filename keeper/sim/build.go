package sim

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
	"github.com/keeper-project/keeper/keeper/sim/internal/txbuild"
)

// buildTxs compiles groups of instructions into co-signed transactions with the call's payer as fee
// payer and the chain's confirmed blockhash. It consumes the next hostile mode, which changes the last
// transaction, the one carrying the operation (HostileSecondDrains appends one instead); mint is the token a hostile transaction targets. The
// caller holds s.mu.
func (s *Sim) buildTxs(c *call, mint solana.PublicKey, groups ...[]txbuild.Instruction) ([]*txbuild.Tx, error) {
	bh, _ := s.chain.Ledger.LatestBlockhash(rpc.CommitmentConfirmed)
	hostile := s.faults.NextHostile()
	if hostile == faults.HostileSecondDrains {
		groups = append(groups, faults.DrainIxs(c.wallet))
		hostile = faults.HostileNone
	}
	out := make([]*txbuild.Tx, 0, len(groups))
	for i, g := range groups {
		payer := c.payer
		if i == len(groups)-1 {
			g, payer = faults.Hostilize(hostile, c.wallet, payer, mint, g)
		}
		t, err := txbuild.NewTx(payer, bh, g)
		if err != nil {
			return nil, fmt.Errorf("build transaction %d: %w", i, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// buildOne builds the single transaction of an operation and returns its API object.
func (s *Sim) buildOne(c *call, mint solana.PublicKey, ixs []txbuild.Instruction) (market.Transaction, error) {
	txs, err := s.buildTxs(c, mint, ixs)
	if err != nil {
		return market.Transaction{}, err
	}
	return txs[0].ApiTransaction(), nil
}

// marketIx returns a market-program instruction whose first accounts are the user (signer, writable)
// and the co-signer (read-only signer).
func marketIx(user solana.PublicKey, data []byte, rest ...solana.AccountMeta) txbuild.Instruction {
	accts := append([]solana.AccountMeta{txbuild.Meta(user, true, true), txbuild.Meta(ids.CoSigner(), true, false)}, rest...)
	return txbuild.Instruction{Program: ids.MarketProgramID, Data: data, Accounts: accts}
}

// loanFor resolves a loan address for a write and checks that the caller is its borrower.
func (s *Sim) loanFor(c *call, address string) (*programs.Loan, *state.Loan, error) {
	if address == "" {
		return nil, nil, apiwire.BadRequest("loan is required")
	}
	k, err := solana.PublicKeyFromBase58(address)
	if err != nil {
		return nil, nil, apiwire.BadRequest("loan %q is not a base58 address", address)
	}
	info, ok := s.w.LoanByAddr[k]
	if !ok {
		return nil, nil, apiwire.BadRequest("unknown loan %s", address)
	}
	st, err := s.loanState(info)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case st.Borrower != c.wallet.String():
		return nil, nil, apiwire.Unauthorized("wallet %s is not the borrower of loan %s", c.wallet, address)
	case st.Closed:
		return nil, nil, apiwire.BadRequest("loan %s is closed", address)
	}
	return info, st, nil
}

// strategyFor resolves a strategy address for a write and checks that the caller is its authority.
func (s *Sim) strategyFor(c *call, address string) (*programs.Strategy, *state.Strategy, error) {
	if address == "" {
		return nil, nil, apiwire.BadRequest("strategy is required")
	}
	k, err := solana.PublicKeyFromBase58(address)
	if err != nil {
		return nil, nil, apiwire.BadRequest("strategy %q is not a base58 address", address)
	}
	info, ok := s.w.StratByAdr[k]
	if !ok {
		return nil, nil, apiwire.BadRequest("unknown strategy %s", address)
	}
	st, err := s.strategyState(info)
	if err != nil {
		return nil, nil, err
	}
	if st.Authority != c.wallet.String() {
		return nil, nil, apiwire.Unauthorized("wallet %s is not the authority of strategy %s", c.wallet, address)
	}
	return info, st, nil
}
