package signer

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"

	"github.com/gagliardetto/solana-go"
)

// Errors of misuse: a Signer without a guard, or a Tx not made by a Decode
// function.
var (
	errNoGuard = errors.New("signer: no guard configured; use WithGuard before signing")
	errNoTx    = errors.New("signer: empty transaction; decode one with DecodeAPITransaction, DecodeWire or DecodeMessage")
)

// Signed is a signed transaction ready to send.
type Signed struct {
	// Wire is the wire transaction: shortvec(n) || n signatures || the
	// original message bytes.
	Wire []byte
	// Signature is our signature.
	Signature solana.Signature
	// TxID is the first signature, the transaction's id on chain.
	TxID solana.Signature
	// Blockhash is the message's recent blockhash (the nonce value when
	// DurableNonce is set).
	Blockhash solana.Hash
	// DurableNonce reports that the transaction advances a durable nonce and
	// does not expire with its blockhash.
	DurableNonce bool
}

// Base64 returns the wire transaction in base64, as RPC and Jito take it.
func (s *Signed) Base64() string { return base64.StdEncoding.EncodeToString(s.Wire) }

// Check runs the guard for kind and b over tx without signing, for dry runs
// and plans. It returns nil, a [*Refusal], or an error about its inputs.
func (s *Signer) Check(tx *Tx, kind Kind, b Bounds) error {
	if s.guard == nil || s.key == nil {
		return errNoGuard
	}
	if tx == nil || tx.msg == nil {
		return errNoTx
	}
	return s.guard.check(tx, kind, b)
}

// Sign runs the guard for kind and b over tx and, only if every rule passes,
// signs the original message bytes in our slot. Other slots keep the
// signatures decoding verified; tx itself is not modified. It returns a
// [*Refusal] when a rule forbids signing. A key held in a token is asked
// only then, each call bounded by the token's timeout.
func (s *Signer) Sign(tx *Tx, kind Kind, b Bounds) (*Signed, error) {
	if err := s.Check(tx, kind, b); err != nil {
		return nil, err
	}
	return s.sign(context.Background(), tx)
}

// sign fills our slot and assembles the wire transaction.
func (s *Signer) sign(ctx context.Context, tx *Tx) (*Signed, error) {
	slot := tx.msg.signerIndex(s.pub)
	if slot < 0 {
		return nil, refuse(RuleNotASigner, "our key %s is not a required signer", s.pub)
	}
	sigs := slices.Clone(tx.sigs)
	sig, err := s.key.sign(ctx, tx.raw)
	if err != nil {
		return nil, err
	}
	sigs[slot] = sig
	for i, sig := range sigs {
		if sig.IsZero() {
			return nil, refuse(RuleMissingSignature, "signature slot %d (%s) is empty after signing", i, tx.msg.keys[i])
		}
	}
	_, nonce := tx.DurableNonce()
	return &Signed{
		Wire:         encodeWire(sigs, tx.raw),
		Signature:    sigs[slot],
		TxID:         sigs[0],
		Blockhash:    tx.msg.blockhash,
		DurableNonce: nonce,
	}, nil
}

// Unsigned returns tx as a wire transaction with our signature slot left
// zero and every other slot as decoding verified it (the signatures the
// market put there): the bytes to simulate with signature verification off
// before anything is signed. A signature of our key that came with tx is
// dropped, so nothing these bytes reach could land them. It refuses a tx
// our key is not a required signer of.
func (s *Signer) Unsigned(tx *Tx) ([]byte, error) {
	if tx == nil || tx.msg == nil {
		return nil, errNoTx
	}
	slot := tx.msg.signerIndex(s.pub)
	if slot < 0 {
		return nil, refuse(RuleNotASigner, "our key %s is not a required signer", s.pub)
	}
	sigs := slices.Clone(tx.sigs)
	sigs[slot] = solana.Signature{}
	return encodeWire(sigs, tx.raw), nil
}

// SignTip signs a tip transaction keeper built itself (see the chain
// package's tip message builder): exactly one System transfer of at most
// maxTip lamports from our wallet to one of tipAccounts, our wallet the only
// signer and the fee payer, no lookup tables, nothing else. The shape is
// checked ([RuleTipShape]) and then the guard runs for [KindTip] with a lamport
// bound of maxTip plus the signature fee.
func (s *Signer) SignTip(message []byte, tipAccounts []string, maxTip uint64) (*Signed, error) {
	if s.guard == nil || s.key == nil {
		return nil, errNoGuard
	}
	tx, err := DecodeMessage(message)
	if err != nil {
		return nil, err
	}
	if err := checkTipShape(tx, s.pub); err != nil {
		return nil, err
	}
	b := Bounds{MaxLamports: satAdd(maxTip, lamportsPerSignature), TipAccounts: tipAccounts, MaxTip: maxTip}
	return s.Sign(tx, KindTip, b)
}

// checkTipShape enforces the tip transaction's exact shape for our wallet.
func checkTipShape(tx *Tx, wallet solana.PublicKey) error {
	m := tx.msg
	switch {
	case m.header.numRequiredSignatures != 1 || m.keys[0] != wallet:
		return refuse(RuleTipShape, "a tip transaction must have our wallet as its only signer and fee payer")
	case len(m.lookups) != 0:
		return refuse(RuleTipShape, "a tip transaction must not use lookup tables")
	case len(m.ixs) != 1:
		return refuse(RuleTipShape, "a tip transaction must hold exactly one instruction, found %d", len(m.ixs))
	}
	ix := m.ixs[0]
	if m.keys[ix.program] != solana.SystemProgramID || len(ix.data) != 12 || len(ix.accounts) != 2 ||
		ix.data[0] != systemTransfer || ix.data[1]|ix.data[2]|ix.data[3] != 0 || ix.accounts[0] != 0 {
		return refuseIx(RuleTipShape, 0, m.keys[ix.program], "the instruction is not a System transfer from our wallet")
	}
	return nil
}

// String describes the signed transaction by its id.
func (s *Signed) String() string { return fmt.Sprintf("signed tx %s (%d bytes)", s.TxID, len(s.Wire)) }
