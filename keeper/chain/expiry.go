package chain

import (
	"context"
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
	c            *Client
	hashes       []solana.Hash // distinct
	seenValid    map[solana.Hash]bool
	invalidSince map[solana.Hash]time.Time
}

// newExpiryWatch watches the distinct hashes among hashes.
func (c *Client) newExpiryWatch(hashes []solana.Hash) *expiryWatch {
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
		g, err := w.c.blockhashGone(ctx, h)
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
			if now.Sub(since) < w.c.opts.BlockhashGrace {
				allGone = false
				continue
			}
		}
		anyGone = true
	}
	return anyGone, allGone, nil
}

// confirmGone is the final check once every blockhash looked gone: the
// signatures are searched in the node's whole history, then the hashes are
// asked again. ok is false when the answer must wait (a signature seen
// below the commitment, a hash valid again, an error); otherwise st are the
// final statuses: a signature not found there can never land.
func (c *Client) confirmGone(ctx context.Context, sigs []solana.Signature, hashes []solana.Hash) (st []Status, ok bool) {
	st, err := c.statuses(ctx, sigs, true)
	if err != nil {
		c.log.Warn("final signature status check failed", "err", err)
		return nil, false
	}
	for _, s := range st {
		if s.Found && !s.Reached(c.commitment) {
			return nil, false
		}
	}
	for _, h := range hashes {
		gone, err := c.blockhashGone(ctx, h)
		if err != nil {
			c.log.Warn("final blockhash check failed", "blockhash", h, "err", err)
			return nil, false
		}
		if !gone {
			return nil, false
		}
	}
	return st, true
}
