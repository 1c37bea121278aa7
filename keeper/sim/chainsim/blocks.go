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

// blockIndex maps slots to the blocks they produced: which slots stalls
// skipped, the height and blockhash of each block, and the recent
// blockhashes a transaction may carry. It is guarded by the chain's mu.
type blockIndex struct {
	genesis      time.Time
	seed         uint64
	stalls       []stallWindow          // sorted, disjoint
	registeredTo uint64                 // highest height in blocks
	blocks       map[solana.Hash]uint64 // recent blockhash → height
	order        []blockRef             // blocks in height order
}

// newBlockIndex returns the index of a chain whose slot 0 starts at genesis,
// with its genesis block registered.
func newBlockIndex(genesis time.Time, seed uint64) *blockIndex {
	b := &blockIndex{genesis: genesis, seed: seed, blocks: map[solana.Hash]uint64{}}
	b.register(0)
	return b
}

// blockhashOf returns the blockhash of the block in slot.
func (b *blockIndex) blockhashOf(slot uint64) solana.Hash {
	var buf [8 + 8 + 8]byte
	copy(buf[:8], "chainsim")
	binary.LittleEndian.PutUint64(buf[8:], b.seed)
	binary.LittleEndian.PutUint64(buf[16:], slot)
	return sha256.Sum256(buf[:])
}

// lastProduced returns the newest slot at or before s that has a block.
func (b *blockIndex) lastProduced(s uint64) uint64 {
	for _, w := range b.stalls {
		if s >= w.start && s < w.end {
			return w.start - 1
		}
	}
	return s
}

// firstProduced returns the first slot at or after s that has a block.
func (b *blockIndex) firstProduced(s uint64) uint64 {
	for _, w := range b.stalls {
		if s >= w.start && s < w.end {
			return w.end
		}
	}
	return s
}

// heightOfSlot returns the block height of a slot that has a block.
func (b *blockIndex) heightOfSlot(s uint64) uint64 {
	skipped := uint64(0)
	for _, w := range b.stalls {
		if w.start >= s {
			break
		}
		skipped += min(w.end, s) - w.start
	}
	return s - skipped
}

// slotOfHeight returns the slot of the block at height h.
func (b *blockIndex) slotOfHeight(h uint64) uint64 {
	s := h
	for _, w := range b.stalls {
		if w.start > s {
			break
		}
		s += w.end - w.start
	}
	return s
}

// posOfSlot describes the block in slot s (which must have one).
func (b *blockIndex) posOfSlot(s uint64) svm.BlockPos {
	return svm.BlockPos{
		Slot:   s,
		Height: b.heightOfSlot(s),
		Time:   b.genesis.Add(time.Duration(s) * SlotDuration),
		Hash:   b.blockhashOf(s),
	}
}

// posOfHeight describes the block at height h.
func (b *blockIndex) posOfHeight(h uint64) svm.BlockPos { return b.posOfSlot(b.slotOfHeight(h)) }

// stall makes the slots slots from start produce no block, extending the
// last stall when it reaches start.
func (b *blockIndex) stall(start, slots uint64) {
	if n := len(b.stalls); n > 0 && b.stalls[n-1].end >= start {
		b.stalls[n-1].end += slots
		return
	}
	b.stalls = append(b.stalls, stallWindow{start: start, end: start + slots})
}

// extend registers the blocks up to height tip, skipping those too old to
// remember.
func (b *blockIndex) extend(tip uint64) {
	if tip <= b.registeredTo {
		return
	}
	from := b.registeredTo + 1
	if tip >= keepBlocks {
		from = max(from, tip-keepBlocks+1)
	}
	for h := from; h <= tip; h++ {
		b.register(h)
	}
}

// forget drops the blockhashes keepBlocks or more below height tip.
func (b *blockIndex) forget(tip uint64) {
	for len(b.order) > 0 && b.order[0].height+keepBlocks <= tip {
		delete(b.blocks, b.order[0].hash)
		b.order = b.order[1:]
	}
}

// register remembers the blockhash of the block at height h.
func (b *blockIndex) register(h uint64) {
	hash := b.blockhashOf(b.slotOfHeight(h))
	b.blocks[hash] = h
	b.order = append(b.order, blockRef{height: h, hash: hash})
	b.registeredTo = h
}

// validAt reports whether hash is a blockhash that is valid at height h.
func (b *blockIndex) validAt(hash solana.Hash, h uint64) bool {
	bh, ok := b.blocks[hash]
	return ok && bh <= h && h <= bh+MaxBlockhashAge
}

// heightAt returns the height of the block a commitment level sees when
// the newest block is at height tip.
func heightAt(tip uint64, cm rpc.CommitmentType) uint64 {
	switch cm {
	case rpc.CommitmentConfirmed:
		return tip - min(tip, 1)
	case rpc.CommitmentFinalized:
		return tip - min(tip, 32)
	}
	return tip
}
