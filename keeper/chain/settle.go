package chain

import (
	"context"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// Verdict is Settle's answer for the attempts of one action.
type Verdict int

// Verdicts.
const (
	// VerdictPending: nothing landed yet, but something still may (a
	// blockhash is valid, or a signature is seen below the commitment).
	// Do not build a new attempt; ask again later.
	VerdictPending Verdict = iota
	// VerdictLanded: a transaction of Settlement.Attempt reached the
	// commitment (possibly with an error: see the statuses).
	VerdictLanded
	// VerdictDead: no signature landed and every blockhash expired; none
	// ever can. Only now may a new attempt be built.
	VerdictDead
)

// String returns the verdict's name.
func (v Verdict) String() string {
	return nameOf(int(v), "pending", "landed", "dead")
}

// Settlement is Settle's answer.
type Settlement struct {
	Verdict Verdict
	// Attempt indexes the attempt that landed, or is -1.
	Attempt int
	// Statuses holds the latest status of every transaction, per attempt.
	Statuses [][]Status
}

// settle implements [Client.Settle].
func (c *confirmer) settle(ctx context.Context, attempts [][]TxRef) (Settlement, error) {
	var sigs []solana.Signature
	var hashes []solana.Hash
	for _, a := range attempts {
		for _, r := range a {
			sigs = append(sigs, r.Signature)
			hashes = append(hashes, r.Blockhash)
		}
	}
	s, decided, _, err := c.settleStatusesAt(ctx, attempts, sigs)
	if err != nil || decided {
		return s, err
	}
	goneAt, gone, err := c.allGone(ctx, uniqueHashes(hashes))
	if err != nil {
		return s, fmt.Errorf("settle: %w", err)
	}
	if !gone {
		return s, nil
	}
	s, decided, seen, err := c.settleStatusesAt(ctx, attempts, sigs)
	if err != nil || decided {
		return s, err
	}
	if seen < goneAt {
		// The status node lags the one that saw the hashes gone: a landing
		// in the slots it has not seen would be missed. Still pending.
		return s, nil
	}
	s.Verdict = VerdictDead
	return s, nil
}

// settleStatusesAt fetches statuses; decided is true when they alone give
// the verdict (landed, or seen below the commitment: pending). seen is the
// last slot the answering nodes had seen.
func (c *confirmer) settleStatusesAt(ctx context.Context, attempts [][]TxRef, sigs []solana.Signature) (s Settlement, decided bool, seen uint64, err error) {
	s = Settlement{Verdict: VerdictPending, Attempt: -1}
	var st []Status
	st, seen, err = c.statusesAt(ctx, sigs, true)
	if err != nil {
		return s, false, 0, fmt.Errorf("settle: %w", err)
	}
	found := false
	for i, a := range attempts {
		s.Statuses = append(s.Statuses, st[:len(a)])
		for _, x := range st[:len(a)] {
			if x.Reached(c.reads.commitment) && s.Attempt < 0 {
				s.Verdict, s.Attempt = VerdictLanded, i
			}
			found = found || x.Found
		}
		st = st[len(a):]
	}
	return s, s.Verdict == VerdictLanded || found, seen, nil
}
