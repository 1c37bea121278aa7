package chainsim

import (
	"errors"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// Landed is a transaction that landed, successfully or not. Its slices are
// shared: do not modify them.
type Landed struct {
	// Signature is the transaction id, its first signature.
	Signature solana.Signature
	// Transaction is the decoded transaction (static account keys only).
	Transaction *solana.Transaction
	// Raw is the wire transaction.
	Raw []byte
	// AccountKeys are the static keys followed by those loaded from lookup
	// tables (writable, then read-only).
	AccountKeys []solana.PublicKey
	// Slot, BlockHeight and BlockTime describe the block it landed in.
	Slot        uint64
	BlockHeight uint64
	BlockTime   time.Time
	// At is when the chain executed it, on the chain's clock: for a
	// transaction sent by RPC, the moment the send was served.
	At time.Time
	// Fee is the fee charged, in lamports.
	Fee uint64
	// Err is the instruction error, nil when every instruction succeeded.
	Err *svm.TxError
	// Logs are the program logs.
	Logs []string
	// UnitsConsumed is the compute units used.
	UnitsConsumed uint64
	// BundleID is the Jito bundle it landed in, if any.
	BundleID string
}

// record is what the chain keeps of a landed transaction.
type record struct {
	Landed
	version int // -1 legacy, 0 v0
	loadedW []solana.PublicKey
	loadedR []solana.PublicKey
	res     *execResult
}

// pendingItem is a transaction or bundle waiting for a block.
type pendingItem struct {
	target uint64 // the earliest slot it may land in
	tx     *svm.Txn
	bundle *bundleRecord
}

// SendTransaction hands a signed wire transaction to the leader, without
// preflight: it is decoded and its signatures verified, then it lands in
// the current slot (or, during a stall, in the first block after it). The
// error is non-nil when the transaction cannot land: ErrInvalidTransaction
// for a malformed one, or a *TxError such as ErrSignatureFailure,
// ErrBlockhashNotFound, ErrAlreadyProcessed or ErrInsufficientFundsForFee. A
// transaction that lands with a failed instruction returns a nil error; its
// status carries the error.
func (c *Chain) SendTransaction(raw []byte) (solana.Signature, error) {
	t, err := svm.ParseTx(raw)
	if err != nil {
		return solana.Signature{}, err
	}
	if err := t.VerifySignatures(); err != nil {
		return t.ID(), err
	}
	c.lock()
	defer c.unlock()
	return t.ID(), c.submitLocked(t)
}

// submitLocked lands a verified transaction now, or queues it during a
// stall. The caller holds c.mu.
func (c *Chain) submitLocked(t *svm.Txn) error {
	if c.stalledNow() {
		c.queue = append(c.queue, &pendingItem{target: c.seen, tx: t})
		return nil
	}
	if terr := c.landTxLocked(t, c.tip); terr != nil {
		return terr
	}
	return nil
}

// landTxLocked runs t in the block at pos and records it. The caller holds
// c.mu.
func (c *Chain) landTxLocked(t *svm.Txn, pos svm.BlockPos) *svm.TxError {
	res, terr := c.run(c.accounts, t, runOpts{pos: pos, hashHeight: pos.Height})
	if terr != nil {
		c.log.Debug("transaction dropped", "signature", t.ID(), "reason", terr.Kind())
		return terr
	}
	c.recordLocked(t, pos, res, "")
	return nil
}

// recordLocked stores a landed transaction and queues it for the hooks.
func (c *Chain) recordLocked(t *svm.Txn, pos svm.BlockPos, res *execResult, bundleID string) {
	rec := &record{
		Landed: Landed{
			Signature:     t.ID(),
			Transaction:   &solana.Transaction{Signatures: t.Sigs, Message: t.Msg},
			Raw:           t.Raw,
			AccountKeys:   t.Keys,
			Slot:          pos.Slot,
			BlockHeight:   pos.Height,
			BlockTime:     pos.Time,
			At:            c.clock.Now(),
			Fee:           res.fee,
			Err:           res.err,
			Logs:          res.logs,
			UnitsConsumed: res.units,
			BundleID:      bundleID,
		},
		version: t.Version(),
		loadedW: t.LoadedW,
		loadedR: t.LoadedR,
		res:     res,
	}
	c.txs[t.ID()] = rec
	c.writes++
	c.noteFee(t, pos, res)
	c.observeLocked(pos.Slot)
	c.emit(rec.Landed)
}

// processQueue lands, in order, every queued item whose block has come.
// The caller holds c.mu.
func (c *Chain) processQueue(now uint64) {
	for len(c.queue) > 0 {
		it := c.queue[0]
		slot := c.firstProduced(it.target)
		if slot > now {
			return
		}
		c.queue = c.queue[1:]
		pos := c.posOfSlot(slot)
		if it.tx != nil {
			_ = c.landTxLocked(it.tx, pos) // a dropped transaction is logged
			continue
		}
		c.landBundleLocked(it.bundle, pos)
	}
}

// Transaction returns a landed transaction.
func (c *Chain) Transaction(sig solana.Signature) (Landed, bool) {
	c.lock()
	defer c.unlock()
	rec, ok := c.txs[sig]
	if !ok {
		return Landed{}, false
	}
	return rec.Landed, true
}

// asTxError returns the *TxError in err's chain, if any.
func asTxError(err error) (*svm.TxError, bool) {
	var terr *svm.TxError
	ok := errors.As(err, &terr)
	return terr, ok
}
