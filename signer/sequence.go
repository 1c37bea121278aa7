package signer

import (
	"bytes"
	"context"
)

// SequenceRefusal is a refusal of one transaction of a sequence.
type SequenceRefusal struct {
	// Index is the transaction the rule refused; for a bound the sequence
	// as a whole exceeds, the last one.
	Index int
	Err   error
}

// Error implements error.
func (e *SequenceRefusal) Error() string { return e.Err.Error() }

// Unwrap returns the refusal.
func (e *SequenceRefusal) Unwrap() error { return e.Err }

// SignSequence runs the guard over the transactions of one answer, which
// land in order, and signs them all only if every rule passes (see
// [Signer.CheckSequence]). An error wraps a [*Refusal] in a
// [*SequenceRefusal] saying which transaction it refused; so does a failure
// to sign (a token that does not answer), and nothing is returned signed.
func (s *Signer) SignSequence(txs []*Tx, kind Kind, b Bounds) ([]*Signed, error) {
	ctx := context.Background() // a token key bounds each call itself
	if err := s.CheckSequence(txs, kind, b); err != nil {
		return nil, err
	}
	out := make([]*Signed, len(txs))
	for i, tx := range txs {
		signed, err := s.sign(ctx, tx)
		if err != nil {
			return nil, &SequenceRefusal{Index: i, Err: err}
		}
		out[i] = signed
	}
	return out, nil
}

// CheckSequence runs the guard over the transactions of one answer without
// signing anything, so they can be simulated unsigned before they are
// signed. Each transaction must pass every rule of kind on its own, and the
// bounds hold for the sequence as a whole: fees, tips, rent and token
// amounts add up over all of them (an account created by one and closed
// back to us by another costs no rent). An error wraps a [*Refusal] in a
// [*SequenceRefusal] saying which transaction it refused.
func (s *Signer) CheckSequence(txs []*Tx, kind Kind, b Bounds) error {
	if s.guard == nil || s.key == nil {
		return errNoGuard
	}
	perm, ok := kindPermissions[kind]
	if !ok {
		return refuse(RuleUnknownKind, "unknown action kind %q", kind)
	}
	if err := distinct(txs); err != nil {
		return err
	}
	cb, err := compileBounds(b)
	if err != nil {
		return err
	}
	var sum tally
	var fees uint64
	for i, tx := range txs {
		if tx == nil || tx.msg == nil {
			return errNoTx
		}
		c := &check{g: s.guard, tx: tx, m: tx.msg, kind: kind, perm: perm, bounds: cb}
		for _, step := range []func() error{c.signers, c.nonce, c.instructions} {
			if err := step(); err != nil {
				return &SequenceRefusal{Index: i, Err: err}
			}
		}
		fees = satAdd(fees, c.ourFees())
		sum.merge(&c.tally)
	}
	if err := checkTotals(cb, &sum, fees); err != nil {
		return &SequenceRefusal{Index: len(txs) - 1, Err: err}
	}
	return nil
}

// distinct refuses a sequence that holds one message twice, naming the later copy.
func distinct(txs []*Tx) error {
	for i, tx := range txs {
		for j := range i {
			if tx != nil && txs[j] != nil && bytes.Equal(tx.raw, txs[j].raw) {
				return &SequenceRefusal{Index: i, Err: refuse(RuleDuplicateTransaction,
					"transaction %d is transaction %d again: one signature, so it could land only once", i, j)}
			}
		}
	}
	return nil
}

// merge adds o's spending to t (not its compute budget, which is per
// transaction).
func (t *tally) merge(o *tally) {
	t.created = satAdd(t.created, o.created)
	t.tips = satAdd(t.tips, o.tips)
	t.unknownMint = satAdd(t.unknownMint, o.unknownMint)
	for acct, l := range o.funded {
		t.fund(acct, l)
	}
	for acct := range o.closedToUs {
		t.closeToUs(acct)
	}
	for mint, v := range o.tokens {
		t.addToken(mint, v)
	}
}
