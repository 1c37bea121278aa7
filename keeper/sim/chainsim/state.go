package chainsim

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// State is the chain's accounts: read and written by landed transactions,
// by the caller, and by updates scheduled for a slot. It is guarded by the
// chain's mu.
type State struct {
	c        *Chain
	accounts svm.AccountMap
	writes   uint64            // see Version
	updates  []scheduledUpdate // see ScheduleUpdate, sorted by slot
	past     pastStates        // the accounts of past banks
}

// newState returns the accounts of a chain at its genesis: the built-in
// programs and the native mint.
func newState(c *Chain) *State {
	s := &State{c: c, accounts: svm.AccountMap{}}
	s.past.finalized = func() uint64 { return c.Ledger.viewAt(rpc.CommitmentFinalized).Slot }
	for id, b := range svm.Builtins {
		s.accounts[id] = &svm.Account{Lamports: 1, Owner: b.Loader, Executable: true}
	}
	s.accounts[solana.WrappedSol] = svm.NativeMintAccount()
	return s
}

// fundTipAccounts gives the block engine's tip accounts, at genesis, the
// rent-exempt balance of an empty system account, as Jito's mainnet tip
// accounts hold: without it, under the rent rule, a first tip smaller than
// that minimum could never create them.
func (s *State) fundTipAccounts(tips []solana.PublicKey) {
	for _, t := range tips {
		if _, ok := s.accounts[t]; !ok {
			s.accounts[t] = &svm.Account{Lamports: svm.RentExemptMinimum(0), Owner: solana.SystemProgramID}
		}
	}
}

// SetAccount stores an account as given (for example a CLMM pool or
// position laid out by the caller). An account with no lamports, no data
// and no owner removes the address.
func (s *State) SetAccount(key solana.PublicKey, a svm.Account) {
	s.c.lock()
	defer s.c.unlock()
	s.willWrite()
	if a.Lamports == 0 && len(a.Data) == 0 && a.Owner.IsZero() {
		s.past.put(s.accounts, key, nil)
		return
	}
	cp := a.Clone()
	s.past.put(s.accounts, key, &cp)
}

// WriteAsOf runs f, and dates the writes it makes through State's
// SetAccount, UpdateAccount and UpdateAccounts at the slot of at instead of
// the current slot: the banks of the slots since (what a simulation at
// confirmed or finalized, or a lagging node, reads) hold them too, as if
// they had happened then. It is for a simulated world that applies, when it
// is next asked, what happened at a time already past (a scheduled event);
// nothing else may write meanwhile. Landed transactions are never
// backdated.
func (c *Chain) WriteAsOf(at time.Time, f func() error) error {
	c.lock()
	slot := uint64(max(0, at.Sub(c.Ledger.idx.genesis)/SlotDuration))
	c.State.past.backdate = &slot
	c.unlock()
	defer func() {
		c.lock()
		c.State.past.backdate = nil
		c.unlock()
	}()
	return f()
}

// willWrite is called, under the chain's lock, before the caller writes
// accounts in the current slot: it counts the change (see Version) and
// keeps what lagging nodes still see.
func (s *State) willWrite() {
	s.past.beforeWrite(s.c.Ledger.seen, s.accounts)
	s.writes++
}

// Account returns a copy of key's account.
func (s *State) Account(key solana.PublicKey) (svm.Account, bool) {
	s.c.lock()
	defer s.c.unlock()
	a, ok := s.accounts[key]
	if !ok {
		return svm.Account{}, false
	}
	return a.Clone(), true
}

// Balance returns wallet's lamports (0 without an account).
func (s *State) Balance(wallet solana.PublicKey) uint64 {
	s.c.lock()
	defer s.c.unlock()
	return svm.LamportsOf(s.accounts, wallet)
}

// TokenBalance returns wallet's balance of mint in its associated token
// account (0 without one).
func (s *State) TokenBalance(wallet, mint solana.PublicKey) uint64 {
	ata, err := svm.AssociatedTokenAddress(wallet, mint)
	if err != nil {
		return 0
	}
	s.c.lock()
	defer s.c.unlock()
	t, ok := svm.DecodeTokenAccount(svm.Load(s.accounts, ata).Data)
	if !ok {
		return 0
	}
	return t.Amount
}

// UpdateAccount replaces key's account with f's result in one step under
// the chain's lock, so no transaction can land between the read and the
// write (a Account followed by SetAccount could lose its update). f gets a
// copy of the account and whether it exists; an error from f leaves the
// account unchanged and is returned. f must not call the chain.
func (s *State) UpdateAccount(key solana.PublicKey, f func(a svm.Account, exists bool) (svm.Account, error)) error {
	s.c.lock()
	defer s.c.unlock()
	s.willWrite()
	cur, ok := s.accounts[key]
	var in svm.Account
	if ok {
		in = cur.Clone()
	}
	out, err := f(in, ok)
	if err != nil {
		return fmt.Errorf("chainsim: update account %s: %w", key, err)
	}
	cp := out.Clone()
	s.past.put(s.accounts, key, &cp)
	return nil
}

// UpdateAccounts replaces several accounts with f's results in one step
// under the chain's lock, so a reader sees all of them before or all after
// (a CLMM pool and its tick arrays, say). f gets a copy of each account and
// whether it exists, in keys' order, and returns the accounts to store in
// the same order; an account returned without lamports, data or owner is
// left absent. An error from f leaves every account unchanged and is
// returned. f must not call the chain.
func (s *State) UpdateAccounts(keys []solana.PublicKey, f func(accts []svm.Account, exists []bool) ([]svm.Account, error)) error {
	s.c.lock()
	defer s.c.unlock()
	s.willWrite()
	out, err := f(s.copies(keys))
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
		s.past.put(s.accounts, k, &cp)
	}
	return nil
}

// Accounts returns copies of keys' accounts, read in one step under the
// chain's lock, and whether each exists.
func (s *State) Accounts(keys []solana.PublicKey) ([]svm.Account, []bool) {
	s.c.lock()
	defer s.c.unlock()
	s.writes++
	return s.copies(keys)
}

// copies returns copies of keys' accounts and whether each exists. The
// caller holds the chain's mu.
func (s *State) copies(keys []solana.PublicKey) ([]svm.Account, []bool) {
	out := make([]svm.Account, len(keys))
	exists := make([]bool, len(keys))
	for i, k := range keys {
		if cur, ok := s.accounts[k]; ok {
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
func (s *State) ScheduleUpdate(slot uint64, key solana.PublicKey, f func(a svm.Account, exists bool) (svm.Account, error)) {
	s.c.lock()
	defer s.c.unlock()
	u := scheduledUpdate{slot: max(slot, s.c.Ledger.seen), key: key, f: f}
	i, _ := slices.BinarySearchFunc(s.updates, u.slot+1, func(e scheduledUpdate, s uint64) int {
		if e.slot < s {
			return -1
		}
		return 1
	})
	s.updates = slices.Insert(s.updates, i, u)
	s.applyUpdates(s.c.Ledger.seen)
}

// applyUpdatesLocked makes, in slot order, the scheduled updates of slots
// up to now, each observed as made in its slot. The caller holds the
// chain's mu.
func (s *State) applyUpdates(now uint64) {
	for len(s.updates) > 0 && s.updates[0].slot <= now {
		u := s.updates[0]
		s.updates = s.updates[1:]
		s.past.beforeWrite(u.slot, s.accounts)
		cur, ok := s.accounts[u.key]
		var in svm.Account
		if ok {
			in = cur.Clone()
		}
		out, err := u.f(in, ok)
		if err != nil {
			s.c.log.Warn("scheduled account update failed", "account", u.key, "slot", u.slot, "err", err)
			continue
		}
		cp := out.Clone()
		s.accounts[u.key] = &cp
		s.writes++
		s.c.Pubsub.observe(u.slot)
	}
}

// Version counts the changes of the chain's accounts so far: every landed transaction (which at
// least charges its fee) and every setup or external write. Two equal versions mean the same
// accounts, so a reader may cache what it derived from them.
func (s *State) Version() uint64 {
	return read(s.c, func() uint64 { return s.writes })
}

// pastStates keeps the accounts as they were at the end of recent slots:
// the banks a simulation at confirmed or finalized runs on (Agave's
// simulateTransaction and Jito's simulateBundle use the bank of the
// commitment they are given), and what a node configured to lag
// (inject.MethodFaults.LagSlots) still sees, as an RPC node behind the
// cluster does. Before anything is written in a slot, the state it replaces
// is recorded as the state at the end of the slot before; the state at the
// end of any slot is then the first record at or after it, or the current
// state when there is none. Records are shallow: committed accounts are
// never modified in place, only replaced. Records older than both the
// finalized block and the longest lag are forgotten. It is guarded by the
// chain's mu.
type pastStates struct {
	keep      uint64         // how many slots back a lagging read may look
	finalized func() uint64  // the slot of the finalized block
	recs      []pastAccounts // labels increasing
	backdate  *uint64        // the slot the caller's writes are dated at, see Chain.WriteAsOf
}

// pastAccounts is the chain's accounts at the end of slot end.
type pastAccounts struct {
	end      uint64
	accounts svm.AccountMap
}

// beforeWrite records accounts, about to be written in slot, as the state
// at the end of the slot before, and forgets records no read can reach.
func (p *pastStates) beforeWrite(slot uint64, accounts svm.AccountMap) {
	if slot == 0 {
		return
	}
	end := slot - 1
	if n := len(p.recs); n > 0 && p.recs[n-1].end >= end {
		return // recorded already: this slot's writes come after that record
	}
	horizon := min(end-min(p.keep, end), p.finalized())
	drop := 0
	for drop < len(p.recs) && p.recs[drop].end < horizon {
		drop++
	}
	p.recs = append(p.recs[drop:], pastAccounts{end: end, accounts: maps.Clone(accounts)})
}

// put stores an account the caller writes into current (nil removes it),
// and into the records since the slot of Chain.WriteAsOf.
func (p *pastStates) put(current svm.AccountMap, key solana.PublicKey, a *svm.Account) {
	if a == nil {
		delete(current, key)
	} else {
		current[key] = a
	}
	if p.backdate != nil {
		p.patch(*p.backdate, key, a)
	}
}

// patch writes an account (nil removes it) into the records of the ends
// of slot and of the slots after it.
func (p *pastStates) patch(slot uint64, key solana.PublicKey, a *svm.Account) {
	for _, r := range p.recs {
		switch {
		case r.end < slot:
		case a == nil:
			delete(r.accounts, key)
		default:
			r.accounts[key] = a
		}
	}
}

// seen returns the accounts a node lag slots behind reads at slot: the
// current ones when it does not lag.
func (p *pastStates) seen(slot, lag uint64, current svm.AccountMap) svm.AccountMap {
	if lag == 0 {
		return current
	}
	return p.at(slot, current)
}

// at returns the accounts as they were at the end of slot.
func (p *pastStates) at(slot uint64, current svm.AccountMap) svm.AccountMap {
	for _, r := range p.recs {
		if r.end >= slot {
			return r.accounts
		}
	}
	return current
}
