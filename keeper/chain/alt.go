package chain

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/gagliardetto/solana-go"
)

// lookupTableHeaderLen is the size of an address lookup table's metadata;
// the addresses follow, 32 bytes each.
const lookupTableHeaderLen = 56

// lookupTables resolves the addresses messages load through address lookup
// tables, reading each table once and again only when a message asks past
// what was read.
type lookupTables struct {
	reads *Reads
	cache lookupCache
}

// writableKeys resolves the writable accounts a v0 message loads
// through address lookup tables: they can be debited like static keys, so
// outflow accounting must see them.
func (t *lookupTables) writableKeys(ctx context.Context, m solana.Message) ([]solana.PublicKey, error) {
	lookups := m.AddressTableLookups
	if len(lookups) == 0 {
		return nil, nil
	}
	tables, err := t.resolve(ctx, lookups)
	if err != nil {
		return nil, err
	}
	var out []solana.PublicKey
	for i, l := range lookups {
		addrs := tables[i]
		for _, idx := range l.WritableIndexes {
			if int(idx) >= len(addrs) {
				return nil, fmt.Errorf("address lookup table %s: index %d out of %d addresses", l.AccountKey, idx, len(addrs))
			}
			out = append(out, addrs[idx])
		}
	}
	return out, nil
}

// lookupAddresses decodes the addresses stored in a lookup table account.
func lookupAddresses(key solana.PublicKey, a *Account) ([]solana.PublicKey, error) {
	switch {
	case a == nil:
		return nil, fmt.Errorf("address lookup table %s: account not found", key)
	case !a.Owner.Equals(solana.AddressLookupTableProgramID):
		return nil, fmt.Errorf("address lookup table %s: owned by %s, not the lookup table program", key, a.Owner)
	case len(a.Data) < lookupTableHeaderLen || (len(a.Data)-lookupTableHeaderLen)%32 != 0:
		return nil, fmt.Errorf("address lookup table %s: %d bytes is not a table", key, len(a.Data))
	}
	body := a.Data[lookupTableHeaderLen:]
	out := make([]solana.PublicKey, len(body)/32)
	for i := range out {
		out[i] = solana.PublicKeyFromBytes(body[i*32 : (i+1)*32])
	}
	return out, nil
}

// lookupCache remembers the addresses of address lookup tables. A table
// only grows: the runtime appends addresses and never rewrites one at an
// index, so a cached prefix stays true, and a table is read again only
// when a message asks for an index past what was cached. (A deactivated or
// closed table makes the transaction fail in simulation, not resolve to
// other addresses.)
type lookupCache struct {
	mu     sync.Mutex
	tables map[solana.PublicKey][]solana.PublicKey // guarded by mu
}

// get returns the cached addresses of key when they reach past every index
// of l.
func (lc *lookupCache) get(l solana.MessageAddressTableLookup) ([]solana.PublicKey, bool) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	addrs, ok := lc.tables[l.AccountKey]
	if !ok {
		return nil, false
	}
	for _, idx := range slices.Concat(l.WritableIndexes, l.ReadonlyIndexes) {
		if int(idx) >= len(addrs) {
			return nil, false
		}
	}
	return addrs, true
}

// put remembers a table's addresses, keeping the longer of two reads.
func (lc *lookupCache) put(key solana.PublicKey, addrs []solana.PublicKey) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.tables == nil {
		lc.tables = map[solana.PublicKey][]solana.PublicKey{}
	}
	if len(addrs) >= len(lc.tables[key]) {
		lc.tables[key] = addrs
	}
}

// resolve returns the addresses of each lookup's table, from the cache
// when it covers the lookup's indexes, else read in one request.
func (t *lookupTables) resolve(ctx context.Context, lookups []solana.MessageAddressTableLookup) ([][]solana.PublicKey, error) {
	out := make([][]solana.PublicKey, len(lookups))
	var missing []int
	for i, l := range lookups {
		if addrs, ok := t.cache.get(l); ok {
			out[i] = addrs
		} else {
			missing = append(missing, i)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	keys := make([]solana.PublicKey, len(missing))
	for j, i := range missing {
		keys[j] = lookups[i].AccountKey
	}
	accs, err := t.reads.Accounts(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("fetch address lookup tables: %w", err)
	}
	for j, i := range missing {
		addrs, err := lookupAddresses(keys[j], accs[j])
		if err != nil {
			return nil, err
		}
		t.cache.put(keys[j], addrs)
		out[i] = addrs
	}
	return out, nil
}
