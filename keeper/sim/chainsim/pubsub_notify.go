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
// blocks later. The caller holds the chain's mu.
func (h *Pubsub) frontier(cm rpc.CommitmentType) (uint64, bool) {
	l := h.c.Ledger
	depth := uint64(confirmedDepth)
	switch cm {
	case rpc.CommitmentFinalized:
		depth = finalizedDepth
	case rpc.CommitmentProcessed:
		depth = 0
		if l.tip.Slot == l.seen {
			depth = 1 // the newest block's slot is not over
		}
	}
	if l.tip.Height < depth {
		return 0, false
	}
	return l.idx.slotOfHeight(l.tip.Height - depth), true
}

// notifyLocked sends what the slots since prevSeen produced: a
// slotNotification per new block, then account and signature
// notifications for every slot each commitment level has newly seen
// complete. The caller holds the chain's mu.
func (h *Pubsub) notify(prevSeen uint64) {
	if len(h.subs) == 0 {
		return
	}
	h.notifySlots(prevSeen)
	for _, sub := range sortedSubs(h.subs) {
		if sub.kind == subSlot {
			continue
		}
		f, ok := h.frontier(sub.cm)
		if !ok || f < sub.next {
			continue
		}
		if sub.kind == subAccount {
			h.notifyAccount(sub, f)
		} else {
			h.notifySignature(sub, f)
		}
	}
	for _, w := range h.watches {
		w.prune()
	}
}

// notifySlots sends a slotNotification for each block produced in
// (prevSeen, seen], stopping early when no slot subscriber is left.
func (h *Pubsub) notifySlots(prevSeen uint64) {
	l := h.c.Ledger
	var subs []*subscription
	for _, sub := range sortedSubs(h.subs) {
		if sub.kind == subSlot {
			subs = append(subs, sub)
		}
	}
	for s := prevSeen + 1; s <= l.seen && len(subs) > 0; s++ {
		if l.idx.lastProduced(s) != s {
			continue // a skipped slot has no bank
		}
		hgt := l.idx.heightOfSlot(s)
		info := slotInfo{Slot: s, Parent: l.idx.slotOfHeight(hgt - min(hgt, 1)), Root: l.idx.slotOfHeight(hgt - min(hgt, finalizedDepth))}
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

// notifyAccount sends one accountNotification per slot in
// [sub.next, f] that changed the account, with its state at the end of
// that slot.
func (h *Pubsub) notifyAccount(sub *subscription, f uint64) {
	w := h.watches[sub.key]
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

// notifySignature sends the signatureNotification once the
// transaction's block has reached the subscription's commitment, then ends
// the subscription, as a validator does.
func (h *Pubsub) notifySignature(sub *subscription, f uint64) {
	l := h.c.Ledger
	from := sub.next
	sub.next = f + 1
	rec, ok := l.txs[sub.sig]
	if !ok || rec.Slot > f || rec.Slot+statusCacheSlots < l.seen {
		return
	}
	slot := max(rec.Slot, l.idx.firstProduced(from))
	sub.conn.notifyThen("signatureNotification", sub.id, contextValue(slot, map[string]any{"err": svm.WireErr(rec.Err)}),
		h.notified.writing(sub.sig, l.clock))
	h.remove(sub.id)
	sub.conn.forget(sub.id)
}
