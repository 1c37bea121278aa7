package svm

import (
	"encoding/binary"
	"slices"

	"github.com/gagliardetto/solana-go"
)

// lookupTableMetaSize is the size of an address lookup table's header; the
// addresses follow it, 32 bytes each.
const lookupTableMetaSize = 56

// Resolve loads the message's address lookup tables from st and fills keys
// and writable. Errors are the runtime's load errors: the transaction does
// not land.
func (t *Txn) Resolve(st Store) *TxError {
	t.LoadedW, t.LoadedR = nil, nil
	for _, l := range t.Msg.AddressTableLookups {
		addrs, terr := lookupAddresses(st, l.AccountKey)
		if terr != nil {
			return terr
		}
		for _, idx := range l.WritableIndexes {
			if int(idx) >= len(addrs) {
				return ErrInvalidAddressLookupTableIndex
			}
			t.LoadedW = append(t.LoadedW, addrs[idx])
		}
		for _, idx := range l.ReadonlyIndexes {
			if int(idx) >= len(addrs) {
				return ErrInvalidAddressLookupTableIndex
			}
			t.LoadedR = append(t.LoadedR, addrs[idx])
		}
	}
	t.Keys = slices.Concat(t.Msg.AccountKeys, t.LoadedW, t.LoadedR)
	seen := make(map[solana.PublicKey]bool, len(t.Keys))
	for _, k := range t.Keys {
		if seen[k] {
			return ErrAccountLoadedTwice
		}
		seen[k] = true
	}
	t.Writable = t.computeWritable()
	return nil
}

// lookupAddresses returns the addresses stored in the lookup table at key.
func lookupAddresses(st Store, key solana.PublicKey) ([]solana.PublicKey, *TxError) {
	acct, ok := st.Get(key)
	if !ok {
		return nil, ErrAddressLookupTableNotFound
	}
	if acct.Owner != solana.AddressLookupTableProgramID {
		return nil, ErrInvalidAddressLookupTableOwner
	}
	return LookupTableAddresses(*acct)
}

// LookupTableAddresses returns the addresses an address lookup table
// account holds.
func LookupTableAddresses(acct Account) ([]solana.PublicKey, *TxError) {
	d := acct.Data
	if len(d) < lookupTableMetaSize || (len(d)-lookupTableMetaSize)%32 != 0 || binary.LittleEndian.Uint32(d) != 1 {
		return nil, ErrInvalidAddressLookupTableData
	}
	addrs := make([]solana.PublicKey, 0, (len(d)-lookupTableMetaSize)/32)
	for off := lookupTableMetaSize; off < len(d); off += 32 {
		addrs = append(addrs, solana.PublicKeyFromBytes(d[off:off+32]))
	}
	return addrs, nil
}

// computeWritable returns each key's write flag: the header's, with keys
// invoked as programs and built-in program ids demoted to read-only.
func (t *Txn) computeWritable() []bool {
	h := t.Msg.Header
	nSig, nStatic := int(h.NumRequiredSignatures), t.numStatic()
	programs := map[solana.PublicKey]bool{}
	for _, ix := range t.Msg.Instructions {
		programs[t.Msg.AccountKeys[ix.ProgramIDIndex]] = true
	}
	w := make([]bool, len(t.Keys))
	for i, k := range t.Keys {
		switch {
		case i < nSig:
			w[i] = i < nSig-int(h.NumReadonlySignedAccounts)
		case i < nStatic:
			w[i] = i < nStatic-int(h.NumReadonlyUnsignedAccounts)
		default:
			w[i] = i < nStatic+len(t.LoadedW)
		}
		if programs[k] || isBuiltinID(k) {
			w[i] = false
		}
	}
	return w
}

// EncodeLookupTable returns the data of an active lookup table account.
func EncodeLookupTable(authority solana.PublicKey, addrs []solana.PublicKey) []byte {
	d := make([]byte, lookupTableMetaSize, lookupTableMetaSize+32*len(addrs))
	binary.LittleEndian.PutUint32(d[0:], 1)          // ProgramState::LookupTable
	binary.LittleEndian.PutUint64(d[4:], ^uint64(0)) // deactivation slot: active
	d[21] = 1                                        // authority: Some
	copy(d[22:54], authority[:])                     // authority key
	for _, a := range addrs {
		d = append(d, a[:]...)
	}
	return d
}
