package svm

import "github.com/gagliardetto/solana-go"

// TokenBalance is a token account's balance at one point of a transaction.
type TokenBalance struct {
	Index    int // the account's index in the transaction's keys
	Mint     solana.PublicKey
	Owner    solana.PublicKey
	Amount   uint64
	Decimals uint8
}

// Snapshot returns the lamports of every key of t and the balances of those
// that are token accounts, read from st.
func Snapshot(st Store, t *Txn) ([]uint64, []TokenBalance) {
	lamports := make([]uint64, len(t.Keys))
	var tokens []TokenBalance
	for i, k := range t.Keys {
		a, ok := st.Get(k)
		if !ok {
			continue
		}
		lamports[i] = a.Lamports
		if a.Owner != solana.TokenProgramID {
			continue
		}
		ta, ok := DecodeTokenAccount(a.Data)
		if !ok || ta.state == tokenStateUninitialized {
			continue
		}
		tb := TokenBalance{Index: i, Mint: ta.Mint, Owner: ta.Owner, Amount: ta.Amount}
		if m, ok := st.Get(ta.Mint); ok {
			if ms, ok := DecodeMint(m.Data); ok {
				tb.Decimals = ms.Decimals
			}
		}
		tokens = append(tokens, tb)
	}
	return lamports, tokens
}
