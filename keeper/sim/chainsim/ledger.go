package chainsim

import (
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/feemarket"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// statusCacheSlots is how many slots back a status lookup without
// searchTransactionHistory sees, like a node's status cache.
const statusCacheSlots = 300

// Confirmation depths in blocks.
const (
	confirmedDepth = 1
	finalizedDepth = 32
)

// SignatureStatus is the status of a landed transaction.
type SignatureStatus struct {
	// Slot is the slot it landed in.
	Slot uint64
	// Confirmations is the number of blocks built on top of it.
	Confirmations uint64
	// ConfirmationStatus is processed, confirmed (one block on top) or
	// finalized (32 blocks on top).
	ConfirmationStatus rpc.ConfirmationStatusType
	// Err is the instruction error, nil on success.
	Err *svm.TxError
}

// Ledger is the chain's history: the slots that passed, the blocks they
// produced, and the transactions that landed in them. Its state is guarded
// by the chain's mu.
type Ledger struct {
	c     *Chain
	clock Clock
	idx   *blockIndex
	seen  uint64                       // the last clock slot synced
	tip   svm.BlockPos                 // the newest block
	txs   map[solana.Signature]*record // every landed transaction
	msgs  map[[32]byte]bool            // the message hash of every landed transaction
	fees  feemarket.FeeBook            // recent priority fees
}

// newLedger returns the ledger of a chain at its genesis.
func newLedger(c *Chain, clock Clock, genesis time.Time, seed uint64) *Ledger {
	l := &Ledger{c: c, clock: clock, idx: newBlockIndex(genesis, seed), txs: map[solana.Signature]*record{}, msgs: map[[32]byte]bool{}}
	l.tip = l.idx.posOfSlot(0)
	return l
}

// clockSlot returns the slot the clock is in.
func (l *Ledger) clockSlot() uint64 {
	d := l.clock.Now().Sub(l.idx.genesis)
	if d < 0 {
		return 0
	}
	return uint64(d / SlotDuration)
}

// stalled reports whether the current slot produces no block.
func (l *Ledger) stalled() bool { return l.idx.lastProduced(l.seen) != l.seen }

// viewAt describes the block a commitment level sees.
func (l *Ledger) viewAt(cm rpc.CommitmentType) svm.BlockPos {
	return l.idx.posOfHeight(heightAt(l.tip.Height, cm))
}

// Stall stops block production for the next slots slots, starting with the
// next slot (or extends a stall in progress). Meanwhile the block height
// stands still and whatever is sent waits for the first block after it.
func (l *Ledger) Stall(slots uint64) {
	if slots == 0 {
		return
	}
	l.c.lock()
	defer l.c.unlock()
	l.idx.stall(l.seen+1, slots)
}

// Slot returns the current slot.
func (l *Ledger) Slot() uint64 {
	return read(l.c, func() uint64 { return l.seen })
}

// BlockHeight returns the height of the newest block.
func (l *Ledger) BlockHeight() uint64 {
	return read(l.c, func() uint64 { return l.tip.Height })
}

// LatestBlockhash returns the blockhash of the block the commitment sees
// ("" means processed) and the last block height at which it is valid.
func (l *Ledger) LatestBlockhash(cm rpc.CommitmentType) (solana.Hash, uint64) {
	l.c.lock()
	defer l.c.unlock()
	pos := l.viewAt(cm)
	return pos.Hash, pos.Height + MaxBlockhashAge
}

// IsBlockhashValid reports whether a transaction with hash could still land
// as seen by the block of the commitment ("" means processed).
func (l *Ledger) IsBlockhashValid(hash solana.Hash, cm rpc.CommitmentType) bool {
	return read(l.c, func() bool { return l.idx.validAt(hash, heightAt(l.tip.Height, cm)) })
}

// Transaction returns a landed transaction.
func (l *Ledger) Transaction(sig solana.Signature) (Landed, bool) {
	l.c.lock()
	defer l.c.unlock()
	rec, ok := l.txs[sig]
	if !ok {
		return Landed{}, false
	}
	return rec.Landed, true
}

// SignatureStatus returns the status of a landed transaction. Without
// searchHistory, transactions older than the status cache (300 slots) are
// not found, as on a real node.
func (l *Ledger) SignatureStatus(sig solana.Signature, searchHistory bool) (SignatureStatus, bool) {
	l.c.lock()
	defer l.c.unlock()
	return l.status(sig, searchHistory)
}

// status is SignatureStatus with the chain's mu held.
func (l *Ledger) status(sig solana.Signature, searchHistory bool) (SignatureStatus, bool) {
	rec, ok := l.txs[sig]
	if !ok || !searchHistory && rec.Slot+statusCacheSlots < l.seen {
		return SignatureStatus{}, false
	}
	depth, level := confirmation(l.tip.Height, rec.BlockHeight)
	return SignatureStatus{Slot: rec.Slot, Confirmations: depth, ConfirmationStatus: level, Err: rec.Err}, true
}

// RecentPrioritizationFees answers getRecentPrioritizationFees as Agave
// does: one entry per confirmed block of the last 150 that had a
// transaction, in slot order, holding the lowest compute-unit price paid in
// that block, raised to the lowest price paid there by the transactions that
// write-locked each of accounts, whichever is highest.
func (l *Ledger) RecentPrioritizationFees(accounts []solana.PublicKey) []PrioritizationFee {
	return read(l.c, func() []PrioritizationFee { return l.fees.Recent(accounts, l.tip.Height) })
}

// confirmation returns how many blocks sit on top of height h when the
// newest block is at height tip, and the confirmation level that gives.
func confirmation(tip, h uint64) (uint64, rpc.ConfirmationStatusType) {
	depth := tip - min(h, tip)
	switch {
	case depth >= finalizedDepth:
		return depth, rpc.ConfirmationStatusFinalized
	case depth >= confirmedDepth:
		return depth, rpc.ConfirmationStatusConfirmed
	}
	return depth, rpc.ConfirmationStatusProcessed
}

// meetsCommitment reports whether a transaction at height h is visible at
// commitment cm when the newest block is at height tip.
func meetsCommitment(tip, h uint64, cm rpc.CommitmentType) bool {
	_, level := confirmation(tip, h)
	switch cm {
	case rpc.CommitmentFinalized:
		return level == rpc.ConfirmationStatusFinalized
	case rpc.CommitmentConfirmed:
		return level != rpc.ConfirmationStatusProcessed
	}
	return true
}
