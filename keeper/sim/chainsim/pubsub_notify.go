package chainsim

import (
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// frontier returns the newest slot whose block a commitment level has
// seen complete, and false when there is none yet. A block is complete
// once its slot is over (a validator notifies processed subscribers when a
// bank is frozen); it is confirmed once a block is built on it (the same
// moment in chainsim, as getSignatureStatuses reports) and finalized 32
// blocks later. The caller holds c.mu.
func (c *Chain) frontier(cm rpc.CommitmentType) (uint64, bool) {
	depth := uint64(confirmedDepth)
	switch cm {
	case rpc.CommitmentFinalized:
		depth = finalizedDepth
	case rpc.CommitmentProcessed:
		depth = 0
		if c.tip.Slot == c.seen {
			depth = 1 // the newest block's slot is not over
		}
	}
	if c.tip.Height < depth {
		return 0, false
	}
	return c.slotOfHeight(c.tip.Height - depth), true
}

// notifyLocked sends what the slots since prevSeen produced: a
// slotNotification per new block, then account and signature
// notifications for every slot each commitment level has newly seen
// complete. The caller holds c.mu.
func (c *Chain) notifyLocked(prevSeen uint64) {
	h := c.pubsub
	if len(h.subs) == 0 {
		return
	}
	c.notifySlotsLocked(prevSeen)
	for _, sub := range sortedSubs(h.subs) {
		if sub.kind == subSlot {
			continue
		}
		f, ok := c.frontier(sub.cm)
		if !ok || f < sub.next {
			continue
		}
		if sub.kind == subAccount {
			c.notifyAccountLocked(sub, f)
		} else {
			c.notifySignatureLocked(sub, f)
		}
	}
	for _, w := range h.watches {
		w.prune()
	}
}

// notifySlotsLocked sends a slotNotification for each block produced in
// (prevSeen, c.seen], stopping early when no slot subscriber is left.
func (c *Chain) notifySlotsLocked(prevSeen uint64) {
	var subs []*subscription
	for _, sub := range sortedSubs(c.pubsub.subs) {
		if sub.kind == subSlot {
			subs = append(subs, sub)
		}
	}
	for s := prevSeen + 1; s <= c.seen && len(subs) > 0; s++ {
		if c.lastProduced(s) != s {
			continue // a skipped slot has no bank
		}
		hgt := c.heightOfSlot(s)
		info := slotInfo{Slot: s, Parent: c.slotOfHeight(hgt - min(hgt, 1)), Root: c.slotOfHeight(hgt - min(hgt, finalizedDepth))}
		live := subs[:0]
		for _, sub := range subs {
			if sub.conn.notify("slotNotification", sub.id, info) {
				live = append(live, sub)
			}
		}
		subs = live
	}
}

// slotInfo is the result of a slotNotification.
type slotInfo struct {
	Parent uint64 `json:"parent"`
	Root   uint64 `json:"root"`
	Slot   uint64 `json:"slot"`
}

// notifyAccountLocked sends one accountNotification per slot in
// [sub.next, f] that changed the account, with its state at the end of
// that slot.
func (c *Chain) notifyAccountLocked(sub *subscription, f uint64) {
	w := c.pubsub.watches[sub.key]
	from := sub.next
	sub.next = f + 1
	if w == nil {
		return
	}
	for _, ch := range w.slotChanges(from, f, sub.minSeq) {
		acct := ch.acct
		if acct == nil {
			empty := svm.EmptyAccount()
			acct = &empty
		}
		v, rerr := encodeSubAccount(acct, sub.encoding, sub.slice)
		if rerr != nil {
			continue // the encoding was checked at subscribe; base58 may outgrow its limit
		}
		if !sub.conn.notify("accountNotification", sub.id, contextValue(ch.slot, v)) {
			return
		}
	}
}

// notifySignatureLocked sends the signatureNotification once the
// transaction's block has reached the subscription's commitment, then ends
// the subscription, as a validator does.
func (c *Chain) notifySignatureLocked(sub *subscription, f uint64) {
	from := sub.next
	sub.next = f + 1
	rec, ok := c.txs[sub.sig]
	if !ok || rec.Slot > f || rec.Slot+statusCacheSlots < c.seen {
		return
	}
	slot := max(rec.Slot, c.firstProduced(from))
	sub.conn.notify("signatureNotification", sub.id, contextValue(slot, map[string]any{"err": svm.WireErr(rec.Err)}))
	c.removeSubLocked(sub.id)
	sub.conn.forget(sub.id)
}
