package svm

import "github.com/gagliardetto/solana-go"

// Store is a readable set of accounts. Accounts it returns must not be
// modified.
type Store interface {
	Get(key solana.PublicKey) (*Account, bool)
}

// WritableStore is a store that accepts writes.
type WritableStore interface {
	Store
	Put(key solana.PublicKey, a *Account)
	Del(key solana.PublicKey)
}

// AccountMap is the committed state of the chain.
type AccountMap map[solana.PublicKey]*Account

func (m AccountMap) Get(key solana.PublicKey) (*Account, bool) {
	a, ok := m[key]
	return a, ok
}

func (m AccountMap) Put(key solana.PublicKey, a *Account) { m[key] = a }

func (m AccountMap) Del(key solana.PublicKey) { delete(m, key) }

// Overlay records writes over a parent store until it is committed or
// dropped, so a failed transaction or bundle leaves no trace.
type Overlay struct {
	parent WritableStore
	writes map[solana.PublicKey]*Account // a nil value marks a deleted account
	order  []solana.PublicKey            // keys in first-write order, for a deterministic commit
}

// NewOverlay returns an empty overlay over parent.
func NewOverlay(parent WritableStore) *Overlay {
	return &Overlay{parent: parent, writes: map[solana.PublicKey]*Account{}}
}

func (o *Overlay) Get(key solana.PublicKey) (*Account, bool) {
	if a, ok := o.writes[key]; ok {
		return a, a != nil
	}
	return o.parent.Get(key)
}

func (o *Overlay) Put(key solana.PublicKey, a *Account) {
	o.note(key)
	o.writes[key] = a
}

func (o *Overlay) Del(key solana.PublicKey) {
	o.note(key)
	o.writes[key] = nil
}

// note remembers the first write of key.
func (o *Overlay) note(key solana.PublicKey) {
	if _, ok := o.writes[key]; !ok {
		o.order = append(o.order, key)
	}
}

// Commit applies the overlay's writes to its parent.
func (o *Overlay) Commit() {
	for _, key := range o.order {
		if a := o.writes[key]; a != nil {
			o.parent.Put(key, a)
		} else {
			o.parent.Del(key)
		}
	}
}

// Load returns a copy of key's account in st, or the empty account.
func Load(st Store, key solana.PublicKey) Account {
	if a, ok := st.Get(key); ok {
		return a.Clone()
	}
	return EmptyAccount()
}

// LamportsOf returns key's balance in st.
func LamportsOf(st Store, key solana.PublicKey) uint64 {
	if a, ok := st.Get(key); ok {
		return a.Lamports
	}
	return 0
}
