package sim

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
	"github.com/keeper-project/keeper/keeper/sim/internal/txbuild"
)

// wrapMargin is how far ahead a repay-all of a wrapped-SOL ledger wraps
// interest, in seconds: the transaction lands a little after it is built,
// and whatever is not taken comes back when the wrapped-SOL account closes.
const wrapMargin = 600

// wrapNeed is how much wrapped SOL a repay of ledger l takes at most.
func wrapNeed(l *state.Ledger, amount uint64, all bool, now int64) uint64 {
	if all {
		return l.Outstanding() + l.InterestAt(now+wrapMargin)
	}
	return amount
}

// wrapNative makes a repay of wrapped SOL payable from the wallet's native
// SOL, as a market would build it: when the wallet's wrapped-SOL account
// holds less than need, the transaction first creates the account (if
// missing), transfers the shortfall into it and syncs it; when the account
// did not exist, it is closed back to the wallet at the end, so the
// leftover and its rent return.
func (s *Sim) wrapNative(p *loanPlan, need uint64) {
	if need == 0 {
		return
	}
	acct := txbuild.Ata(p.user, solana.WrappedSol)
	_, exists := s.chain.Account(acct)
	have := s.chain.TokenBalance(p.user, solana.WrappedSol)
	if have >= need {
		return
	}
	data := binary.LittleEndian.AppendUint32(nil, 2)
	data = binary.LittleEndian.AppendUint64(data, need-have)
	wrap := []txbuild.Instruction{
		txbuild.CreateATAIdempotent(p.payer, p.user, solana.WrappedSol),
		{Program: solana.SystemProgramID, Data: data, Accounts: []solana.AccountMeta{txbuild.Meta(p.user, true, true), txbuild.Meta(acct, false, true)}},
		{Program: solana.TokenProgramID, Data: []byte{17}, Accounts: []solana.AccountMeta{txbuild.Meta(acct, false, true)}},
	}
	p.ixs = append(wrap, p.ixs...)
	if !exists {
		p.ixs = append(p.ixs, txbuild.Instruction{Program: solana.TokenProgramID, Data: []byte{9}, Accounts: []solana.AccountMeta{
			txbuild.Meta(acct, false, true), txbuild.Meta(p.user, false, true), txbuild.Meta(p.user, true, false)}})
	}
}
