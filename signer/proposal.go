package signer

import (
	"context"

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
// no lookup tables, every instruction addressed to program. What each
// instruction says (its multisig, creator and message) is the caller's to
// check against the program's layout before; its cost is bounded by
// simulation.
func (s *Signer) SignProposal(message []byte, program solana.PublicKey) (*Signed, error) {
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
	case len(m.ixs) == 0:
		return nil, refuse(RuleProposalShape, "a proposal transaction holds no instruction")
	}
	for i, ix := range m.ixs {
		if p := m.keys[ix.program]; p != program {
			return nil, refuseIx(RuleProposalShape, i, p, "only the multisig program %s may be called", program)
		}
	}
	return s.sign(context.Background(), tx) // the token, if any, bounds each call with its own deadline
}

// CheckAs refuses: with no key there is nothing to guard for.
func (r *ReadOnly) CheckAs(solana.PublicKey, []*Tx, Kind, Bounds) error { return ErrReadOnly }

// SignProposal refuses: there is no key.
func (r *ReadOnly) SignProposal([]byte, solana.PublicKey) (*Signed, error) { return nil, ErrReadOnly }
