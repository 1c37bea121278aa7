package chainsim

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// observeLocked records, as made in slot, every change of a watched account
// since the last observation. The chain calls it after each landed
// transaction (with its block's slot) and before releasing its lock (with
// the current slot), so a change is attributed to the slot it was made in.
// The caller holds the chain's mu.
func (h *Pubsub) observe(slot uint64) {
	for key, w := range h.watches {
		cur := h.c.State.accounts[key]
		if cur == w.last {
			continue
		}
		if !sameAccount(cur, w.last) {
			h.seq++
			w.changes = append(w.changes, accountChange{slot: slot, seq: h.seq, acct: cur})
		}
		w.last = cur
	}
}

// sameAccount reports whether two account states look the same to a
// subscriber: lamports, owner, data and executable flag.
func sameAccount(a, b *svm.Account) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Lamports == b.Lamports && a.Owner == b.Owner && a.Executable == b.Executable && bytes.Equal(a.Data, b.Data)
}

// slotChanges returns, in slot order, the last change of each slot in
// [from, to] whose last change was made at or after minSeq.
func (w *watch) slotChanges(from, to, minSeq uint64) []accountChange {
	last := map[uint64]accountChange{}
	for _, ch := range w.changes {
		if ch.slot < from || ch.slot > to {
			continue
		}
		if prev, ok := last[ch.slot]; !ok || ch.seq > prev.seq {
			last[ch.slot] = ch
		}
	}
	out := make([]accountChange, 0, len(last))
	for _, ch := range last {
		if ch.seq >= minSeq {
			out = append(out, ch)
		}
	}
	slices.SortFunc(out, func(a, b accountChange) int { return cmp.Compare(a.slot, b.slot) })
	return out
}

// prune forgets the changes every subscription of w has examined.
func (w *watch) prune() {
	low := ^uint64(0)
	for _, s := range w.subs {
		low = min(low, s.next)
	}
	w.changes = slices.DeleteFunc(w.changes, func(ch accountChange) bool { return ch.slot < low })
}
