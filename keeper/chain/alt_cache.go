package chain

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/gagliardetto/solana-go"
)

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

// lookupTables returns the addresses of each lookup's table, from the cache
// when it covers the lookup's indexes, else read in one request.
func (c *Client) lookupTables(ctx context.Context, lookups []solana.MessageAddressTableLookup) ([][]solana.PublicKey, error) {
	out := make([][]solana.PublicKey, len(lookups))
	var missing []int
	for i, l := range lookups {
		if addrs, ok := c.tables.get(l); ok {
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
	accs, err := c.Accounts(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("fetch address lookup tables: %w", err)
	}
	for j, i := range missing {
		addrs, err := lookupAddresses(keys[j], accs[j])
		if err != nil {
			return nil, err
		}
		c.tables.put(keys[j], addrs)
		out[i] = addrs
	}
	return out, nil
}
