package chain

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gagliardetto/solana-go"
)

// expiryWatch tracks the blockhashes of transactions in flight and tells
// when they are gone. A hash counts as gone when it is invalid at the
// client's commitment and at processed; a hash this watch never saw valid
// must moreover stay gone for BlockhashGrace, because a node that lags
// behind the builder's node does not know a fresh blockhash yet (a first
// "blockhash not found" is not final). Not safe for concurrent use.
type expiryWatch struct {
	c            *confirmer
	hashes       []solana.Hash // distinct
	seenValid    map[solana.Hash]bool
	invalidSince map[solana.Hash]time.Time
}

// newExpiryWatch watches the distinct blockhashes of txs.
func (c *confirmer) newExpiryWatch(txs ...Signed) *expiryWatch {
	hashes := make([]solana.Hash, len(txs))
	for i, s := range txs {
		hashes[i] = s.Blockhash
	}
	return &expiryWatch{c: c, hashes: uniqueHashes(hashes), seenValid: map[solana.Hash]bool{}, invalidSince: map[solana.Hash]time.Time{}}
}

// uniqueHashes returns the distinct hashes in first-seen order.
func uniqueHashes(hs []solana.Hash) []solana.Hash {
	var out []solana.Hash
	for _, h := range hs {
		if !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// gone reports whether any and whether all watched hashes are gone.
func (w *expiryWatch) gone(ctx context.Context) (anyGone, allGone bool, err error) {
	now := time.Now()
	allGone = true
	for _, h := range w.hashes {
		g, _, err := w.c.blockhashGone(ctx, h)
		if err != nil {
			return false, false, err
		}
		if !g {
			w.seenValid[h] = true
			delete(w.invalidSince, h)
			allGone = false
			continue
		}
		if !w.seenValid[h] {
			since, ok := w.invalidSince[h]
			if !ok {
				w.invalidSince[h], since = now, now
			}
			if now.Sub(since) < w.c.grace {
				allGone = false
				continue
			}
		}
		anyGone = true
	}
	return anyGone, allGone, nil
}

// confirmGone is the final check once every blockhash looked gone: the
// hashes are asked again, then the signatures are searched in the whole
// history by a node that has seen at least the slot at which the hashes
// were gone. ok is false when the answer must wait (a hash valid again, a
// status answer from a node that lags, a signature seen below the
// commitment, an error); otherwise st are the final statuses: a signature
// not found there can never land.
func (c *confirmer) confirmGone(ctx context.Context, sigs []solana.Signature, hashes []solana.Hash) (st []Status, ok bool) {
	goneAt, gone, err := c.allGone(ctx, hashes)
	if err != nil {
		c.log.Warn("final blockhash check failed", "err", err)
	}
	if !gone {
		return nil, false
	}
	st, seen, err := c.statusesAt(ctx, sigs, true)
	if err != nil {
		c.log.Warn("final signature status check failed", "err", err)
		return nil, false
	}
	if seen < goneAt {
		// The status node has not seen every slot a transaction could
		// have landed in (it lags the node that saw the hashes gone): its
		// "not found" proves nothing yet.
		c.log.Debug("signature statuses lag behind the expiry; waiting", "status_slot", seen, "expired_by_slot", goneAt)
		return nil, false
	}
	for _, s := range st {
		if s.Found && !s.Reached(c.reads.commitment) {
			return nil, false
		}
	}
	return st, true
}

// allGone checks every hash; gone is true when all are, and at is the
// latest slot at which one was seen gone.
func (c *confirmer) allGone(ctx context.Context, hashes []solana.Hash) (at uint64, gone bool, err error) {
	for _, h := range hashes {
		g, slot, err := c.blockhashGone(ctx, h)
		if err != nil {
			return 0, false, fmt.Errorf("blockhash %s: %w", h, err)
		}
		if !g {
			return 0, false, nil
		}
		at = max(at, slot)
	}
	return at, true, nil
}
