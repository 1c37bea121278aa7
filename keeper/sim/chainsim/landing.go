package chainsim

import (
	"errors"
	"fmt"
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
	// Sent is when it reached the chain, on the chain's clock: its send
	// served (At, unless a stall held it) or its bundle accepted by the
	// block engine (At is then the start of the slot it ran in).
	Sent time.Time
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
	sent   time.Time // when it was handed over
}

// SendTransaction hands a signed wire transaction to the leader, without
// preflight: it is decoded and its signatures verified, then it lands in
// the current slot (or, during a stall, in the first block after it; while
// a load of the fee market is on, in the first block that has room for it
// at its priority, if one comes before its blockhash expires). The
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
	return t.ID(), c.leader.submit(t)
}

// leader produces the chain's blocks: as the clock passes slots it makes
// their blocks, lands what waited for them, and lands what is sent in the
// current block. It is guarded by the chain's mu.
type leader struct {
	c       *Chain
	queue   []*pendingItem            // work waiting for a block
	waiting map[solana.Signature]bool // the transactions in queue
}

// sync brings the chain up to the clock: it produces the blocks of the
// slots that passed, lands what waited for them, and forgets old
// blockhashes and fees.
func (p *leader) sync() {
	c, l := p.c, p.c.Ledger
	now := l.clockSlot()
	if now <= l.seen {
		return
	}
	prev := l.seen
	l.seen = now
	tip := l.idx.posOfSlot(l.idx.lastProduced(now))
	l.idx.extend(tip.Height)
	c.State.applyUpdates(now)
	p.produce(prev, now)
	l.tip = tip
	l.idx.forget(tip.Height)
	l.fees.Prune(tip.Height)
	c.Pubsub.notify(prev)
}

// submit lands a verified transaction now, or queues it during a stall (for
// the first block after it) or while the fee market is congested (for the
// next block). A transaction already waiting is not queued again.
func (p *leader) submit(t *svm.Txn) error {
	l := p.c.Ledger
	if stalled := l.stalled(); stalled || p.c.Market.congested(l.seen) {
		if p.waiting[t.ID()] {
			return nil
		}
		target := l.seen + 1
		if stalled {
			target = l.seen
		}
		p.queue = append(p.queue, &pendingItem{target: target, tx: t, sent: l.clock.Now()})
		if p.waiting == nil {
			p.waiting = map[solana.Signature]bool{}
		}
		p.waiting[t.ID()] = true
		return nil
	}
	if terr := p.landTx(t, l.tip, l.clock.Now()); terr != nil {
		return terr
	}
	return nil
}

// landTx runs t, sent at sent, in the block at pos and records it.
func (p *leader) landTx(t *svm.Txn, pos svm.BlockPos, sent time.Time) *svm.TxError {
	p.c.State.past.beforeWrite(pos.Slot, p.c.State.accounts)
	res, terr := p.c.rt.run(p.c.State.accounts, t, runOpts{pos: pos, hashHeight: pos.Height})
	if terr != nil {
		p.c.log.Debug("transaction dropped", "signature", t.ID(), "reason", terr.Kind())
		return terr
	}
	p.record(t, pos, res, "", sent)
	return nil
}

// record stores a landed transaction, sent at sent, and queues it for the
// hooks.
func (p *leader) record(t *svm.Txn, pos svm.BlockPos, res *execResult, bundleID string, sent time.Time) {
	c := p.c
	rec := &record{
		Landed: Landed{
			Signature:     t.ID(),
			Transaction:   &solana.Transaction{Signatures: t.Sigs, Message: t.Msg},
			Raw:           t.Raw,
			AccountKeys:   t.Keys,
			Slot:          pos.Slot,
			BlockHeight:   pos.Height,
			BlockTime:     pos.Time,
			At:            c.Ledger.clock.Now(),
			Fee:           res.fee,
			Err:           res.err,
			Logs:          res.logs,
			UnitsConsumed: res.units,
			BundleID:      bundleID,
			Sent:          sent,
		},
		version: t.Version(),
		loadedW: t.LoadedW,
		loadedR: t.LoadedR,
		res:     res,
	}
	c.Ledger.txs[t.ID()] = rec
	c.Ledger.msgs[svm.MessageHash(t)] = true
	c.State.writes++
	c.Ledger.fees.Note(t, pos.Slot, pos.Height, res.price)
	c.Pubsub.observe(pos.Slot)
	c.hooks.emit(rec.Landed)
}

// processQueue lands, in order, every queued item whose block has come.
func (p *leader) processQueue(now uint64) {
	idx := p.c.Ledger.idx
	for len(p.queue) > 0 {
		it := p.queue[0]
		slot := idx.firstProduced(it.target)
		if slot > now {
			return
		}
		p.queue = p.queue[1:]
		pos := idx.posOfSlot(slot)
		if it.tx != nil {
			delete(p.waiting, it.tx.ID())
			_ = p.landTx(it.tx, pos, it.sent) // a dropped transaction is logged
			continue
		}
		p.landBundle(it.bundle, pos)
	}
}

// landBundle runs a bundle in the block at pos, committing it only if the
// slot's leader runs the Jito client, every transaction succeeds, the tip
// is paid and it wins a place in the slot's auction.
func (p *leader) landBundle(b *bundleRecord, pos svm.BlockPos) {
	e, m := p.c.Bundles, p.c.Market
	if !m.set.JitoLeader(pos.Slot) {
		e.fail(b, fmt.Sprintf("the leader of slot %d does not run the Jito client", pos.Slot))
		return
	}
	p.c.State.past.beforeWrite(pos.Slot, p.c.State.accounts)
	bov := svm.NewOverlay(p.c.State.accounts)
	before := e.tipLamports(bov)
	results := make([]*execResult, len(b.txs))
	for i, t := range b.txs {
		res, terr := p.c.rt.run(bov, t, runOpts{pos: pos, hashHeight: pos.Height})
		if terr == nil && res.err != nil {
			terr = res.err
		}
		if terr != nil {
			e.fail(b, fmt.Sprintf("transaction %d (%s): %v", i, t.ID(), terr))
			return
		}
		results[i] = res
	}
	after := e.tipLamports(bov)
	if after < before || after-before < e.minTip {
		e.fail(b, fmt.Sprintf("tip of %d lamports is below the minimum of %d", after-min(after, before), e.minTip))
		return
	}
	if tip, clearing := after-before, m.set.ClearingTip(pos.Slot); tip < clearing {
		e.fail(b, fmt.Sprintf("tip of %d lamports lost the auction of slot %d, which took tips of %d lamports and more", tip, pos.Slot, clearing))
		return
	}
	m.tips.Add(pos.Slot, after-before)
	bov.Commit()
	for i, t := range b.txs {
		p.record(t, pos, results[i], b.ID, b.sent)
	}
	b.State, b.Slot, b.BlockHeight = BundleLanded, pos.Slot, pos.Height
}

// asTxError returns the *TxError in err's chain, if any.
func asTxError(err error) (*svm.TxError, bool) {
	var terr *svm.TxError
	ok := errors.As(err, &terr)
	return terr, ok
}
