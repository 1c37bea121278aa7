package chainsim

import (
	"fmt"
	"slices"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// UpdateAccount replaces key's account with f's result in one step under
// the chain's lock, so no transaction can land between the read and the
// write (a Account followed by SetAccount could lose its update). f gets a
// copy of the account and whether it exists; an error from f leaves the
// account unchanged and is returned. f must not call the chain.
func (c *Chain) UpdateAccount(key solana.PublicKey, f func(a svm.Account, exists bool) (svm.Account, error)) error {
	c.lock()
	defer c.unlock()
	c.writes++
	cur, ok := c.accounts[key]
	var in svm.Account
	if ok {
		in = cur.Clone()
	}
	out, err := f(in, ok)
	if err != nil {
		return fmt.Errorf("chainsim: update account %s: %w", key, err)
	}
	cp := out.Clone()
	c.accounts[key] = &cp
	return nil
}

// UpdateAccounts replaces several accounts with f's results in one step
// under the chain's lock, so a reader sees all of them before or all after
// (a CLMM pool and its tick arrays, say). f gets a copy of each account and
// whether it exists, in keys' order, and returns the accounts to store in
// the same order; an account returned without lamports, data or owner is
// left absent. An error from f leaves every account unchanged and is
// returned. f must not call the chain.
func (c *Chain) UpdateAccounts(keys []solana.PublicKey, f func(accts []svm.Account, exists []bool) ([]svm.Account, error)) error {
	c.lock()
	defer c.unlock()
	c.writes++
	in := make([]svm.Account, len(keys))
	exists := make([]bool, len(keys))
	for i, k := range keys {
		if cur, ok := c.accounts[k]; ok {
			in[i], exists[i] = cur.Clone(), true
		}
	}
	out, err := f(in, exists)
	if err != nil {
		return fmt.Errorf("chainsim: update %d accounts: %w", len(keys), err)
	}
	if len(out) != len(keys) {
		return fmt.Errorf("chainsim: update %d accounts: got %d back", len(keys), len(out))
	}
	for i, k := range keys {
		a := out[i]
		if a.Lamports == 0 && len(a.Data) == 0 && a.Owner.IsZero() {
			continue
		}
		cp := a.Clone()
		c.accounts[k] = &cp
	}
	return nil
}

// Accounts returns copies of keys' accounts, read in one step under the
// chain's lock, and whether each exists.
func (c *Chain) Accounts(keys []solana.PublicKey) ([]svm.Account, []bool) {
	c.lock()
	defer c.unlock()
	c.writes++
	out := make([]svm.Account, len(keys))
	exists := make([]bool, len(keys))
	for i, k := range keys {
		if cur, ok := c.accounts[k]; ok {
			out[i], exists[i] = cur.Clone(), true
		}
	}
	return out, exists
}

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
