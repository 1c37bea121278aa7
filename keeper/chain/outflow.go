package chain

import (
	"fmt"
	"math/big"

	"github.com/gagliardetto/solana-go"
)

// outflows computes the wallet's net outflows from the watched accounts'
// pre- and post-state: index 0 is the wallet itself, the rest are token
// accounts the wallet owned before. The post-state already has the fee
// deducted from the fee payer, as validators return it, so it is not added.
func outflows(wallet solana.PublicKey, pre, post []*Account) (Outflows, error) {
	lam := new(big.Int).SetUint64(lamportsOf(pre[0]))
	lam.Sub(lam, new(big.Int).SetUint64(lamportsOf(post[0])))
	if !lam.IsInt64() {
		return Outflows{}, fmt.Errorf("lamport outflow %s out of range", lam)
	}
	net := map[solana.PublicKey]*big.Int{}
	for i := 1; i < len(pre); i++ {
		before, _ := decodeTokenAccount(pre[i])
		d, ok := net[before.Mint]
		if !ok {
			d = new(big.Int)
			net[before.Mint] = d
		}
		d.Add(d, new(big.Int).SetUint64(before.Amount))
		if after, ok := decodeTokenAccount(post[i]); ok && after.Owner.Equals(wallet) && after.Mint.Equals(before.Mint) {
			d.Sub(d, new(big.Int).SetUint64(after.Amount))
		}
	}
	out := Outflows{Lamports: lam.Int64(), Tokens: make(map[solana.PublicKey]int64, len(net))}
	for mint, d := range net {
		if !d.IsInt64() {
			return Outflows{}, fmt.Errorf("outflow of mint %s: %s out of range", mint, d)
		}
		out.Tokens[mint] = d.Int64()
	}
	return out, nil
}

// lamportsOf returns an account's lamports, zero when it does not exist.
func lamportsOf(a *Account) uint64 {
	if a == nil {
		return 0
	}
	return a.Lamports
}
