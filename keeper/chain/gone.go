package chain

import (
	"context"
	"sync"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// goneMemory remembers, per blockhash, the earliest slot at which the
// client saw it gone. No transaction using the hash can land after that
// slot, so a status answer from a node that has seen it is final, however
// far that node lags the one that saw the hash gone. It is safe for
// concurrent use.
type goneMemory struct {
	mu    sync.Mutex
	first map[solana.Hash]uint64
}

// maxGoneMemory bounds the remembered hashes; past it the memory starts
// afresh (a verdict then waits for a status node that has seen a later slot).
const maxGoneMemory = 4096

// seen records that hash was gone in an answer at slot and returns the
// earliest such slot.
func (g *goneMemory) seen(hash solana.Hash, slot uint64) uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.first == nil || len(g.first) >= maxGoneMemory {
		g.first = map[solana.Hash]uint64{}
	}
	if first, ok := g.first[hash]; ok && first <= slot {
		return first
	}
	g.first[hash] = slot
	return slot
}

// valid forgets hash: a node still finds it valid.
func (g *goneMemory) valid(hash solana.Hash) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.first, hash)
}

// blockhashGone reports whether hash is invalid both at the client's
// commitment and at processed: a hash merely too new for the confirmed bank
// is valid at processed, so only an expired hash is invalid at both. at is
// the earliest slot of a processed answer that found it gone: no
// transaction using hash can land in a later slot, so a status answer that
// has seen at has seen any landing.
func (c *confirmer) blockhashGone(ctx context.Context, hash solana.Hash) (gone bool, at uint64, err error) {
	valid, _, err := c.reads.blockhashValid(ctx, hash, c.reads.commitment)
	if err != nil {
		return false, 0, err
	}
	if !valid {
		valid, at, err = c.reads.blockhashValid(ctx, hash, rpc.CommitmentProcessed)
		if err != nil {
			return false, 0, err
		}
	}
	if valid {
		c.gone.valid(hash)
		return false, 0, nil
	}
	return true, c.gone.seen(hash, at), nil
}
