package chainsim

import (
	"slices"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// scheduledUpdate is an account update the chain makes when it reaches a
// slot.
type scheduledUpdate struct {
	slot uint64
	key  solana.PublicKey
	f    func(a svm.Account, exists bool) (svm.Account, error)
}

// ScheduleUpdate makes the chain replace key's account with f's result when
// it reaches slot, before anything lands in that slot: an oracle push or
// another out-of-band write that must happen at an exact slot, however the
// clock jumps. f gets a copy of the account and whether it exists, and must
// not call the chain; an error from f leaves the account unchanged and is
// logged. A slot the chain has already reached means now.
func (c *Chain) ScheduleUpdate(slot uint64, key solana.PublicKey, f func(a svm.Account, exists bool) (svm.Account, error)) {
	c.lock()
	defer c.unlock()
	u := scheduledUpdate{slot: max(slot, c.seen), key: key, f: f}
	i, _ := slices.BinarySearchFunc(c.updates, u.slot+1, func(e scheduledUpdate, s uint64) int {
		if e.slot < s {
			return -1
		}
		return 1
	})
	c.updates = slices.Insert(c.updates, i, u)
	c.applyUpdatesLocked(c.seen)
}

// applyUpdatesLocked makes, in slot order, the scheduled updates of slots
// up to now, each observed as made in its slot. The caller holds c.mu.
func (c *Chain) applyUpdatesLocked(now uint64) {
	for len(c.updates) > 0 && c.updates[0].slot <= now {
		u := c.updates[0]
		c.updates = c.updates[1:]
		cur, ok := c.accounts[u.key]
		var in svm.Account
		if ok {
			in = cur.Clone()
		}
		out, err := u.f(in, ok)
		if err != nil {
			c.log.Warn("scheduled account update failed", "account", u.key, "slot", u.slot, "err", err)
			continue
		}
		cp := out.Clone()
		c.accounts[u.key] = &cp
		c.writes++
		c.observeLocked(u.slot)
	}
}
