package signer

import (
	"context"
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// RuleProposalShape refuses a transaction keeper composed to propose to or
// execute through a multisig that does more than address the multisig
// program as our wallet.
const RuleProposalShape Rule = "proposal-shape"

// CheckAs runs the guard over txs as [Signer.CheckSequence] does, with
// authority in the place of our key: for the message of a multisig vault
// transaction, which the vault (a program address) signs when the multisig
// executes it. The kind's allowlist, its rules and the bounds apply to the
// vault as they apply to our wallet on a direct transaction. Nothing is
// signed.
func (s *Signer) CheckAs(authority solana.PublicKey, txs []*Tx, kind Kind, b Bounds) error {
	if s.guard == nil || s.key == nil {
		return errNoGuard
	}
	g := *s.guard
	g.wallet = authority
	ata, _, err := solana.FindAssociatedTokenAddress(authority, solana.WrappedSol)
	if err != nil {
		return refuse(RuleNotASigner, "no wrapped-SOL account for %s: %v", authority, err)
	}
	g.wsolATA = ata
	as := &Signer{identity: identity{pub: authority}, key: s.key, guard: &g}
	return as.CheckSequence(txs, kind, b)
}

// SignProposal signs a transaction keeper composed itself to propose to or
// execute through a multisig: our wallet its only signer and its fee payer,
// no lookup tables, every instruction addressed to program, save keeper's
// compute budget opening it (see proposalBudget), its price within the
// guard's cap lowered by maxUnitPrice (0: the guard's cap). What each
// multisig instruction says (its multisig, creator and message) is the
// caller's to check against the program's layout before; its cost is
// bounded by simulation.
func (s *Signer) SignProposal(message []byte, program solana.PublicKey, maxUnitPrice uint64) (*Signed, error) {
	if s.guard == nil || s.key == nil {
		return nil, errNoGuard
	}
	tx, err := DecodeMessage(message)
	if err != nil {
		return nil, err
	}
	m := tx.msg
	switch {
	case m.header.numRequiredSignatures != 1 || m.keys[0] != s.pub:
		return nil, refuse(RuleProposalShape, "a proposal transaction must have our wallet as its only signer and fee payer")
	case len(m.lookups) != 0:
		return nil, refuse(RuleProposalShape, "a proposal transaction must not use lookup tables")
	}
	first, err := s.proposalBudget(m, maxUnitPrice)
	if err != nil {
		return nil, err
	}
	if len(m.ixs) == first {
		return nil, refuse(RuleProposalShape, "a proposal transaction holds no multisig instruction")
	}
	for i, ix := range m.ixs[first:] {
		if p := m.keys[ix.program]; p != program {
			return nil, refuseIx(RuleProposalShape, first+i, p, "only the multisig program %s may be called", program)
		}
	}
	return s.sign(context.Background(), tx) // the token, if any, bounds each call with its own deadline
}

// proposalBudget returns how many instructions of m, keeper's own proposal
// or execution, are its compute budget: none, or exactly
// SetComputeUnitLimit then SetComputeUnitPrice opening the transaction,
// well formed, the limit at most the runtime's and the price at most the
// guard's cap lowered by maxUnitPrice. A ComputeBudget instruction anywhere
// else, or any other one, is refused.
func (s *Signer) proposalBudget(m *message, maxUnitPrice uint64) (int, error) {
	isBudget := func(i int) bool { return i < len(m.ixs) && m.keys[m.ixs[i].program] == solana.ComputeBudget }
	for i := 2; i < len(m.ixs); i++ {
		if isBudget(i) {
			return 0, refuseIx(RuleProposalShape, i, solana.ComputeBudget, "a compute budget instruction may only open a proposal transaction")
		}
	}
	if !isBudget(0) && !isBudget(1) {
		return 0, nil
	}
	limit, price, ok := budgetPair(m)
	if !ok {
		return 0, refuse(RuleProposalShape, "a proposal transaction's compute budget must be SetComputeUnitLimit then SetComputeUnitPrice, opening it")
	}
	priceCap := s.guard.maxUnitPrice
	if maxUnitPrice > 0 && maxUnitPrice < priceCap {
		priceCap = maxUnitPrice
	}
	switch {
	case limit > MaxComputeUnitLimit:
		return 0, refuseIx(RuleComputeBudget, 0, solana.ComputeBudget, "compute unit limit %d exceeds the runtime's %d", limit, MaxComputeUnitLimit)
	case price > priceCap:
		return 0, refuseIx(RuleComputeUnitPrice, 1, solana.ComputeBudget, "compute unit price %d micro-lamports exceeds the cap of %d", price, priceCap)
	}
	return 2, nil
}

// budgetPair reads m's first two instructions as SetComputeUnitLimit and
// SetComputeUnitPrice of the ComputeBudget program, each with exactly its
// data and no accounts; false when they are anything else.
func budgetPair(m *message) (limit uint32, price uint64, ok bool) {
	if len(m.ixs) < 2 {
		return 0, 0, false
	}
	l, p := m.ixs[0], m.ixs[1]
	for _, ix := range []instruction{l, p} {
		if m.keys[ix.program] != solana.ComputeBudget || len(ix.accounts) != 0 || len(ix.data) == 0 {
			return 0, 0, false
		}
	}
	if len(l.data) != 5 || l.data[0] != budgetSetUnitLimit || len(p.data) != 9 || p.data[0] != budgetSetUnitPrice {
		return 0, 0, false
	}
	return binary.LittleEndian.Uint32(l.data[1:]), binary.LittleEndian.Uint64(p.data[1:]), true
}

// CheckAs refuses: with no key there is nothing to guard for.
func (r *ReadOnly) CheckAs(solana.PublicKey, []*Tx, Kind, Bounds) error { return ErrReadOnly }

// SignProposal refuses: there is no key.
func (r *ReadOnly) SignProposal([]byte, solana.PublicKey, uint64) (*Signed, error) {
	return nil, ErrReadOnly
}
