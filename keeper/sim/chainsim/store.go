package chainsim

import "github.com/gagliardetto/solana-go"

// store is a readable set of accounts. Accounts it returns must not be
// modified.
type store interface {
	get(key solana.PublicKey) (*Account, bool)
}

// writableStore is a store that accepts writes.
type writableStore interface {
	store
	put(key solana.PublicKey, a *Account)
	del(key solana.PublicKey)
}

// accountMap is the committed state of the chain.
type accountMap map[solana.PublicKey]*Account

func (m accountMap) get(key solana.PublicKey) (*Account, bool) {
	a, ok := m[key]
	return a, ok
}

func (m accountMap) put(key solana.PublicKey, a *Account) { m[key] = a }

func (m accountMap) del(key solana.PublicKey) { delete(m, key) }

// overlay records writes over a parent store until it is committed or
// dropped, so a failed transaction or bundle leaves no trace.
type overlay struct {
	parent writableStore
	writes map[solana.PublicKey]*Account // a nil value marks a deleted account
	order  []solana.PublicKey            // keys in first-write order, for a deterministic commit
}

// newOverlay returns an empty overlay over parent.
func newOverlay(parent writableStore) *overlay {
	return &overlay{parent: parent, writes: map[solana.PublicKey]*Account{}}
}

func (o *overlay) get(key solana.PublicKey) (*Account, bool) {
	if a, ok := o.writes[key]; ok {
		return a, a != nil
	}
	return o.parent.get(key)
}

func (o *overlay) put(key solana.PublicKey, a *Account) {
	o.note(key)
	o.writes[key] = a
}

func (o *overlay) del(key solana.PublicKey) {
	o.note(key)
	o.writes[key] = nil
}

// note remembers the first write of key.
func (o *overlay) note(key solana.PublicKey) {
	if _, ok := o.writes[key]; !ok {
		o.order = append(o.order, key)
	}
}

// commit applies the overlay's writes to its parent.
func (o *overlay) commit() {
	for _, key := range o.order {
		if a := o.writes[key]; a != nil {
			o.parent.put(key, a)
		} else {
			o.parent.del(key)
		}
	}
}

// load returns a copy of key's account in st, or the empty account.
func load(st store, key solana.PublicKey) Account {
	if a, ok := st.get(key); ok {
		return a.clone()
	}
	return emptyAccount()
}

// lamportsOf returns key's balance in st.
func lamportsOf(st store, key solana.PublicKey) uint64 {
	if a, ok := st.get(key); ok {
		return a.Lamports
	}
	return 0
}
