package chain

import (
	"testing"

	"github.com/gagliardetto/solana-go"
)

// TestLookupCacheServesOnlyWhatItHolds serves a lookup from the cache only when every index it
// asks for is cached, and keeps the longer of two reads of a table (tables only grow).
func TestLookupCacheServesOnlyWhatItHolds(t *testing.T) {
	var lc lookupCache
	table := solana.PublicKey{1}
	addrs := []solana.PublicKey{{2}, {3}, {4}}
	lookup := func(w, r []uint8) solana.MessageAddressTableLookup {
		return solana.MessageAddressTableLookup{AccountKey: table, WritableIndexes: w, ReadonlyIndexes: r}
	}
	if _, ok := lc.get(lookup([]uint8{0}, nil)); ok {
		t.Fatal("an empty cache served a lookup")
	}
	lc.put(table, addrs)
	if got, ok := lc.get(lookup([]uint8{2}, []uint8{0})); !ok || len(got) != 3 {
		t.Errorf("indexes 2 and 0 of a 3-address table: %v, %v", got, ok)
	}
	if _, ok := lc.get(lookup([]uint8{0}, []uint8{3})); ok {
		t.Error("index 3 of a cached 3-address table was served from the cache")
	}
	lc.put(table, addrs[:1])
	if got, _ := lc.get(lookup([]uint8{1}, nil)); len(got) != 3 {
		t.Errorf("a shorter read replaced the cached table: %v", got)
	}
}
