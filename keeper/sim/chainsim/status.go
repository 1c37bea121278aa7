package chainsim

import (
	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
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

// SignatureStatus returns the status of a landed transaction. Without
// searchHistory, transactions older than the status cache (300 slots) are
// not found, as on a real node.
func (c *Chain) SignatureStatus(sig solana.Signature, searchHistory bool) (SignatureStatus, bool) {
	c.lock()
	defer c.unlock()
	return c.statusLocked(sig, searchHistory)
}

// statusLocked is SignatureStatus with c.mu held.
func (c *Chain) statusLocked(sig solana.Signature, searchHistory bool) (SignatureStatus, bool) {
	rec, ok := c.txs[sig]
	if !ok || !searchHistory && rec.Slot+statusCacheSlots < c.seen {
		return SignatureStatus{}, false
	}
	depth, level := c.confirmation(rec.BlockHeight)
	return SignatureStatus{Slot: rec.Slot, Confirmations: depth, ConfirmationStatus: level, Err: rec.Err}, true
}

// confirmation returns how many blocks sit on top of height h and the
// confirmation level that gives.
func (c *Chain) confirmation(h uint64) (uint64, rpc.ConfirmationStatusType) {
	depth := c.tip.Height - min(h, c.tip.Height)
	switch {
	case depth >= finalizedDepth:
		return depth, rpc.ConfirmationStatusFinalized
	case depth >= confirmedDepth:
		return depth, rpc.ConfirmationStatusConfirmed
	}
	return depth, rpc.ConfirmationStatusProcessed
}

// meetsCommitment reports whether a transaction at height h is visible at
// commitment cm.
func (c *Chain) meetsCommitment(h uint64, cm rpc.CommitmentType) bool {
	_, level := c.confirmation(h)
	switch cm {
	case rpc.CommitmentFinalized:
		return level == rpc.ConfirmationStatusFinalized
	case rpc.CommitmentConfirmed:
		return level != rpc.ConfirmationStatusProcessed
	}
	return true
}
