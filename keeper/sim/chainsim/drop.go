package chainsim

import (
	"slices"

	"github.com/gagliardetto/solana-go"
)

// DropOnce makes the network drop the next transaction sent through sendTransaction whose message
// match accepts, as a leader may drop a transaction: the sender gets its signature, and that
// transaction never lands however often it is sent again, until its blockhash expires. Several drops
// wait in the order they were added; each is used up by the first transaction it matches. match sees
// the message with its static account keys only and must not keep it.
func (c *Chain) DropOnce(match func(*solana.Message) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drops = append(c.drops, match)
}

// takeDropLocked reports whether the transaction sig with message msg is to be dropped: it was
// dropped before, or a waiting drop matches it now (and is used up). The caller holds mu.
func (c *Chain) takeDropLocked(sig solana.Signature, msg *solana.Message) bool {
	if c.dropped[sig] {
		return true
	}
	i := slices.IndexFunc(c.drops, func(match func(*solana.Message) bool) bool { return match(msg) })
	if i < 0 {
		return false
	}
	c.drops = slices.Delete(c.drops, i, i+1)
	if c.dropped == nil {
		c.dropped = map[solana.Signature]bool{}
	}
	c.dropped[sig] = true
	return true
}
