package chainsim

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/keeper-project/keeper/keeper/sim/chainsim/feemarket"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// The fee market's settings and answers, from package feemarket.
type (
	// BlockLimits are the compute budget of a block.
	BlockLimits = feemarket.BlockLimits
	// Load is a competing load of other users' transactions.
	Load = feemarket.Load
	// TipLoad is the competing bids of the Jito auction.
	TipLoad = feemarket.TipLoad
	// TipFloor is what the tip-floor API reports.
	TipFloor = feemarket.TipFloor
	// PrioritizationFee is one block's entry of getRecentPrioritizationFees.
	PrioritizationFee = feemarket.PrioritizationFee
)

// packCatchUp is how many of the slots a clock jump skipped are packed when
// no transaction waits: the older ones could only add fee entries that the
// newer ones push out of the cache.
const packCatchUp = feemarket.FeeWindow + finalizedDepth + 2

// Market is the chain's fee market: the block limits, the competing load,
// which leaders run the Jito client, and the competing tips of the Jito
// auction (see the package documentation). With no load scheduled (the
// default), a transaction lands in the slot it is sent in, whatever it
// pays. Its state is guarded by the chain's mu.
type Market struct {
	c      *Chain
	limits BlockLimits
	set    *feemarket.Settings
	tips   feemarket.LandedTips // the chain's own bundles' tips
}

// newMarket returns the fee market of c.
func newMarket(c *Chain, o Options) *Market {
	return &Market{c: c, limits: o.BlockLimits, set: feemarket.NewSettings(o.Seed, o.NonJitoShare)}
}

// Limits returns the block limits.
func (m *Market) Limits() BlockLimits { return m.limits }

// SetLoad turns the competing load on (or, with nil, off) from slot from on.
// A slot the chain has already produced is not produced again.
func (m *Market) SetLoad(from uint64, l *Load) error {
	return m.change(func(s *feemarket.Settings) error { return s.SetLoad(from, l) })
}

// SetTipLoad sets the competing Jito bids (nil: none) from slot from on.
func (m *Market) SetTipLoad(from uint64, t *TipLoad) error {
	return m.change(func(s *feemarket.Settings) error { return s.SetTipLoad(from, t) })
}

// SetNonJitoShare sets, from slot from on, the share of leaders that do not
// run the Jito client (0: every leader does; 1: none does).
func (m *Market) SetNonJitoShare(from uint64, share float64) error {
	return m.change(func(s *feemarket.Settings) error { return s.SetNonJitoShare(from, share) })
}

// change applies a change of the settings under the chain's lock.
func (m *Market) change(f func(*feemarket.Settings) error) error {
	m.c.lock()
	defer m.c.unlock()
	if err := f(m.set); err != nil {
		return fmt.Errorf("chainsim: %w", err)
	}
	return nil
}

// JitoLeader reports whether the leader of slot runs the Jito client.
// Leaders take turns of 4 slots; whether one runs Jito is drawn from the
// chain's seed and its turn, so the schedule is the same on every run.
func (m *Market) JitoLeader(slot uint64) bool {
	return read(m.c, func() bool { return m.set.JitoLeader(slot) })
}

// ClearingTip returns the smallest tip that wins a place in the auction of
// slot: one lamport more than the lowest of the competing bids that fill the
// slot's room, or 0 when they do not fill it (the engine's minimum tip
// applies besides). A slot whose leader does not run Jito takes no bundle
// whatever its tip.
func (m *Market) ClearingTip(slot uint64) uint64 {
	return read(m.c, func() uint64 { return m.set.ClearingTip(slot) })
}

// TipFloor returns the tip floor over the last 150 slots: the tips of the
// bundles that landed in them, the winning competing bids and the chain's
// own; all zero when none landed.
func (m *Market) TipFloor() TipFloor {
	return read(m.c, func() TipFloor {
		l := m.c.Ledger
		tip := l.tip
		var bySlot [][]uint64
		for s := tip.Slot - min(tip.Slot, feemarket.TipFloorWindow-1); s <= tip.Slot; s++ {
			if l.idx.lastProduced(s) == s {
				bySlot = append(bySlot, append(m.set.WinningBids(s), m.tips.In(s)...))
			}
		}
		return feemarket.NewTipFloor(tip.Time, bySlot)
	})
}

// produce makes the blocks of the slots after prev up to now. Without a
// scheduled load it lands what waited, in order; with one it packs each
// block in turn.
func (p *leader) produce(prev, now uint64) {
	if !p.c.Market.set.HasLoads() {
		p.processQueue(now)
		return
	}
	from := prev + 1
	if len(p.queue) == 0 && now-prev > packCatchUp {
		from = now - packCatchUp + 1
	}
	idx := p.c.Ledger.idx
	for s := from; s <= now; s++ {
		if idx.lastProduced(s) == s {
			p.pack(idx.posOfSlot(s))
		}
	}
}

// candidate is a transaction the leader may put in a block: a waiting one
// (item) or one of the competing load's.
type candidate struct {
	cost feemarket.Cost
	item *pendingItem // nil for the load's
}

// pack builds the block at pos as Agave's leader does while a load is on:
// the bundles that came for it first, then, by priority, every waiting
// transaction and every transaction of the load that fits the block's
// limits. A waiting transaction that does not fit waits for the next block,
// until its blockhash expires.
func (p *leader) pack(pos svm.BlockPos) {
	m, l := p.c.Market, p.c.Ledger
	costs := feemarket.NewTracker(m.limits)
	done := map[*pendingItem]bool{}
	var cands []candidate
	for _, c := range m.set.DrawLoad(pos.Slot, m.limits) {
		cands = append(cands, candidate{cost: c})
	}
	for _, it := range p.queue {
		if l.idx.firstProduced(it.target) > pos.Slot {
			continue
		}
		if it.bundle != nil {
			done[it] = true
			p.landBundle(it.bundle, pos)
			p.chargeBundle(it.bundle, costs)
			continue
		}
		c, ok := p.waitingCost(it.tx, pos)
		if !ok {
			done[it] = true
			continue
		}
		cands = append(cands, candidate{cost: c, item: it})
	}
	for _, i := range byPriority(cands) {
		c := cands[i]
		if !costs.Fits(c.cost.Total(), c.cost.Writable) {
			continue
		}
		if c.item == nil {
			costs.Add(c.cost.Total(), c.cost.Writable)
			l.fees.Add(pos.Slot, pos.Height, c.cost.Price, c.cost.Writable)
			continue
		}
		done[c.item] = true
		if terr := p.landTx(c.item.tx, pos, c.item.sent); terr == nil {
			costs.Add(c.cost.Executed(l.txs[c.item.tx.ID()].UnitsConsumed), c.cost.Writable)
		}
	}
	p.queue = slices.DeleteFunc(p.queue, func(it *pendingItem) bool { return done[it] })
	for it := range done {
		if it.tx != nil {
			delete(p.waiting, it.tx.ID())
		}
	}
}

// byPriority returns the indexes of cands, highest priority first; ties go
// in order (the load's first, then the waiting transactions as sent).
func byPriority(cands []candidate) []int32 {
	order := make([]int32, len(cands))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(cmp.Compare(cands[b].cost.Priority, cands[a].cost.Priority), cmp.Compare(a, b))
	})
	return order
}

// waitingCost returns the cost of a waiting transaction in the block at
// pos, or false when it can no longer land: its blockhash expired (and it is
// no durable-nonce transaction), or its lookup tables or compute budget are
// invalid.
func (p *leader) waitingCost(t *svm.Txn, pos svm.BlockPos) (feemarket.Cost, bool) {
	st, reason := p.c.State.accounts, ""
	if !p.c.Ledger.idx.validAt(t.Msg.RecentBlockhash, pos.Height) {
		if _, ok := svm.CheckNonceTx(st, t); !ok {
			reason = "blockhash expired while waiting for a block"
		}
	}
	if terr := t.Resolve(st); reason == "" && terr != nil {
		reason = terr.Kind()
	}
	c, ok := feemarket.CostOf(t)
	if reason == "" && !ok {
		reason = "invalid compute budget"
	}
	if reason != "" {
		p.c.log.Debug("transaction dropped", "signature", t.ID(), "reason", reason)
		return c, false
	}
	return c, true
}

// chargeBundle counts a landed bundle's transactions against the block.
func (p *leader) chargeBundle(b *bundleRecord, costs *feemarket.Tracker) {
	if b.State != BundleLanded {
		return
	}
	for _, t := range b.txs {
		if c, ok := feemarket.CostOf(t); ok {
			costs.Add(c.Executed(p.c.Ledger.txs[t.ID()].UnitsConsumed), c.Writable)
		}
	}
}

// congested reports whether a load is on in slot: transactions then wait
// for the next block instead of landing at once.
func (m *Market) congested(slot uint64) bool { return m.set.LoadAt(slot) != nil }
