package signer

import (
	"errors"
	"slices"

	"github.com/gagliardetto/solana-go"
)

// Reprice returns the bytes of t's message with its compute budget set to
// b's limit and price: existing SetComputeUnitLimit and SetComputeUnitPrice
// instructions get the new values, missing ones are added at the front
// (the ComputeBudget program joining the static keys as a read-only
// unsigned key when it is not among them). It refuses a message anyone but
// wallet must sign: rewriting it would void their signature.
func Reprice(t *Tx, wallet solana.PublicKey, b Budget) ([]byte, error) {
	if !t.OnlySigner(wallet) {
		return nil, errors.New("signer: reprice: another signer than the wallet signs the message")
	}
	m := *t.msg
	m.keys = slices.Clone(m.keys)
	m.ixs = slices.Clone(m.ixs)
	prog, ok := keyIndex(m.keys, solana.ComputeBudget)
	if !ok {
		prog = m.addReadonlyKey(solana.ComputeBudget)
	}
	var front []instruction
	for _, want := range [][]byte{SetUnitLimitData(b.Limit), SetUnitPriceData(b.Price)} {
		i := slices.IndexFunc(m.ixs, func(ix instruction) bool {
			return m.keys[ix.program] == solana.ComputeBudget && len(ix.data) > 0 && ix.data[0] == want[0]
		})
		if i >= 0 {
			m.ixs[i].data = want
			continue
		}
		front = append(front, instruction{program: prog, data: want})
	}
	m.ixs = append(front, m.ixs...)
	if len(m.keys)+m.numLookupAccounts() > maxAccounts {
		return nil, errors.New("signer: reprice: no room for the ComputeBudget program among the message's accounts")
	}
	return m.encode(), nil
}

// keyIndex returns the index of k among keys.
func keyIndex(keys []solana.PublicKey, k solana.PublicKey) (uint8, bool) {
	i := slices.Index(keys, k)
	return uint8(i), i >= 0
}

// addReadonlyKey appends k to the static keys as read-only and unsigned,
// shifting every index into the lookup tables' accounts (which follow the
// static keys) by one, and returns its index.
func (m *message) addReadonlyKey(k solana.PublicKey) uint8 {
	n := uint8(len(m.keys))
	m.keys = append(m.keys, k)
	m.header.numReadonlyUnsignedAccounts++
	for i, ix := range m.ixs {
		accts := slices.Clone(ix.accounts)
		for j, a := range accts {
			if a >= n {
				accts[j] = a + 1
			}
		}
		m.ixs[i].accounts = accts
	}
	return n
}

// encode serializes m as the chain reads it: a legacy or v0 message.
func (m *message) encode() []byte {
	var b []byte
	if m.versioned {
		b = append(b, 0x80)
	}
	b = append(b, m.header.numRequiredSignatures, m.header.numReadonlySignedAccounts, m.header.numReadonlyUnsignedAccounts)
	b = appendShortvec(b, len(m.keys))
	for _, k := range m.keys {
		b = append(b, k[:]...)
	}
	b = append(b, m.blockhash[:]...)
	b = appendShortvec(b, len(m.ixs))
	for _, ix := range m.ixs {
		b = append(b, ix.program)
		b = appendShortvec(b, len(ix.accounts))
		b = append(b, ix.accounts...)
		b = appendShortvec(b, len(ix.data))
		b = append(b, ix.data...)
	}
	if m.versioned {
		b = appendShortvec(b, len(m.lookups))
		for _, l := range m.lookups {
			b = append(b, l.table[:]...)
			b = appendShortvec(b, len(l.writable))
			b = append(b, l.writable...)
			b = appendShortvec(b, len(l.readonly))
			b = append(b, l.readonly...)
		}
	}
	return b
}
