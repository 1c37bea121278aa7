package chainsim

import (
	"crypto/sha256"
	"encoding/binary"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// MaxBlockhashAge is how many blocks a blockhash stays valid for.
const MaxBlockhashAge = 150

// keepBlocks is how many recent blockhashes the chain remembers.
const keepBlocks = 1024

// stallWindow is a run of slots [start, end) that produce no block.
type stallWindow struct{ start, end uint64 }

// blockRef is a remembered block.
type blockRef struct {
	height uint64
	hash   solana.Hash
}

// blockhashOf returns the blockhash of the block in slot.
func (c *Chain) blockhashOf(slot uint64) solana.Hash {
	var b [8 + 8 + 8]byte
	copy(b[:8], "chainsim")
	binary.LittleEndian.PutUint64(b[8:], c.seed)
	binary.LittleEndian.PutUint64(b[16:], slot)
	return sha256.Sum256(b[:])
}

// clockSlot returns the slot the clock is in.
func (c *Chain) clockSlot() uint64 {
	d := c.clock.Now().Sub(c.genesis)
	if d < 0 {
		return 0
	}
	return uint64(d / SlotDuration)
}

// lastProduced returns the newest slot at or before s that has a block.
func (c *Chain) lastProduced(s uint64) uint64 {
	for _, w := range c.stalls {
		if s >= w.start && s < w.end {
			return w.start - 1
		}
	}
	return s
}

// firstProduced returns the first slot at or after s that has a block.
func (c *Chain) firstProduced(s uint64) uint64 {
	for _, w := range c.stalls {
		if s >= w.start && s < w.end {
			return w.end
		}
	}
	return s
}

// heightOfSlot returns the block height of a slot that has a block.
func (c *Chain) heightOfSlot(s uint64) uint64 {
	skipped := uint64(0)
	for _, w := range c.stalls {
		if w.start >= s {
			break
		}
		skipped += min(w.end, s) - w.start
	}
	return s - skipped
}

// slotOfHeight returns the slot of the block at height h.
func (c *Chain) slotOfHeight(h uint64) uint64 {
	s := h
	for _, w := range c.stalls {
		if w.start > s {
			break
		}
		s += w.end - w.start
	}
	return s
}

// posOfSlot describes the block in slot s (which must have one).
func (c *Chain) posOfSlot(s uint64) svm.BlockPos {
	return svm.BlockPos{
		Slot:   s,
		Height: c.heightOfSlot(s),
		Time:   c.genesis.Add(time.Duration(s) * SlotDuration),
		Hash:   c.blockhashOf(s),
	}
}

// posOfHeight describes the block at height h.
func (c *Chain) posOfHeight(h uint64) svm.BlockPos { return c.posOfSlot(c.slotOfHeight(h)) }

// syncLocked brings the chain up to the clock: it produces the blocks of
// the slots that passed, lands what waited for them, and forgets old
// blockhashes. The caller holds c.mu.
func (c *Chain) syncLocked() {
	now := c.clockSlot()
	if now <= c.seen {
		return
	}
	prev := c.seen
	c.seen = now
	tip := c.posOfSlot(c.lastProduced(now))
	if tip.Height > c.registeredTo {
		from := c.registeredTo + 1
		if tip.Height >= keepBlocks {
			from = max(from, tip.Height-keepBlocks+1)
		}
		for h := from; h <= tip.Height; h++ {
			c.registerBlock(h)
		}
	}
	c.applyUpdatesLocked(now)
	c.processQueue(now)
	c.tip = tip
	for len(c.blockOrder) > 0 && c.blockOrder[0].height+keepBlocks <= tip.Height {
		delete(c.blocks, c.blockOrder[0].hash)
		c.blockOrder = c.blockOrder[1:]
	}
	c.pruneFees()
	c.notifyLocked(prev)
}

// registerBlock remembers the blockhash of the block at height h.
func (c *Chain) registerBlock(h uint64) {
	hash := c.blockhashOf(c.slotOfHeight(h))
	c.blocks[hash] = h
	c.blockOrder = append(c.blockOrder, blockRef{height: h, hash: hash})
	c.registeredTo = h
}

// validAt reports whether hash is a blockhash that is valid at height h.
func (c *Chain) validAt(hash solana.Hash, h uint64) bool {
	bh, ok := c.blocks[hash]
	return ok && bh <= h && h <= bh+MaxBlockhashAge
}

// stalledNow reports whether the current slot produces no block.
func (c *Chain) stalledNow() bool { return c.lastProduced(c.seen) != c.seen }

// heightAt returns the height of the block a commitment level sees.
func (c *Chain) heightAt(cm rpc.CommitmentType) uint64 {
	h := c.tip.Height
	switch cm {
	case rpc.CommitmentConfirmed:
		return h - min(h, 1)
	case rpc.CommitmentFinalized:
		return h - min(h, 32)
	}
	return h
}

// Stall stops block production for the next slots slots, starting with the
// next slot (or extends a stall in progress). Meanwhile the block height
// stands still and whatever is sent waits for the first block after it.
func (c *Chain) Stall(slots uint64) {
	if slots == 0 {
		return
	}
	c.lock()
	defer c.unlock()
	start := c.seen + 1
	if n := len(c.stalls); n > 0 && c.stalls[n-1].end >= start {
		c.stalls[n-1].end += slots
		return
	}
	c.stalls = append(c.stalls, stallWindow{start: start, end: start + slots})
}

// Slot returns the current slot.
func (c *Chain) Slot() uint64 {
	c.lock()
	defer c.unlock()
	return c.seen
}

// BlockHeight returns the height of the newest block.
func (c *Chain) BlockHeight() uint64 {
	c.lock()
	defer c.unlock()
	return c.tip.Height
}

// LatestBlockhash returns the blockhash of the block the commitment sees
// ("" means processed) and the last block height at which it is valid.
func (c *Chain) LatestBlockhash(cm rpc.CommitmentType) (solana.Hash, uint64) {
	c.lock()
	defer c.unlock()
	pos := c.posOfHeight(c.heightAt(cm))
	return pos.Hash, pos.Height + MaxBlockhashAge
}

// IsBlockhashValid reports whether a transaction with hash could still land
// as seen by the block of the commitment ("" means processed).
func (c *Chain) IsBlockhashValid(hash solana.Hash, cm rpc.CommitmentType) bool {
	c.lock()
	defer c.unlock()
	return c.validAt(hash, c.heightAt(cm))
}
