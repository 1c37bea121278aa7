package chain

import (
	"context"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// lookupTableHeaderLen is the size of an address lookup table's metadata;
// the addresses follow, 32 bytes each.
const lookupTableHeaderLen = 56

// writableLookupKeys resolves the writable accounts a v0 message loads
// through address lookup tables: they can be debited like static keys, so
// outflow accounting must see them.
func (c *Client) writableLookupKeys(ctx context.Context, m solana.Message) ([]solana.PublicKey, error) {
	lookups := m.AddressTableLookups
	if len(lookups) == 0 {
		return nil, nil
	}
	tables, err := c.lookupTables(ctx, lookups)
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
