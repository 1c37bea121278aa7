package chainsim

import "github.com/gagliardetto/solana-go"

// tokenBalance is a token account's balance at one point of a transaction.
type tokenBalance struct {
	index    int // the account's index in the transaction's keys
	mint     solana.PublicKey
	owner    solana.PublicKey
	amount   uint64
	decimals uint8
}

// snapshot returns the lamports of every key of t and the balances of those
// that are token accounts, read from st.
func snapshot(st store, t *txn) ([]uint64, []tokenBalance) {
	lamports := make([]uint64, len(t.keys))
	var tokens []tokenBalance
	for i, k := range t.keys {
		a, ok := st.get(k)
		if !ok {
			continue
		}
		lamports[i] = a.Lamports
		if a.Owner != solana.TokenProgramID {
			continue
		}
		ta, ok := decodeTokenAccount(a.Data)
		if !ok || ta.state == tokenStateUninitialized {
			continue
		}
		tb := tokenBalance{index: i, mint: ta.mint, owner: ta.owner, amount: ta.amount}
		if m, ok := st.get(ta.mint); ok {
			if ms, ok := decodeMint(m.Data); ok {
				tb.decimals = ms.decimals
			}
		}
		tokens = append(tokens, tb)
	}
	return lamports, tokens
}
