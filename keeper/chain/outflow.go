package chain

import (
	"fmt"
	"math/big"

	"github.com/gagliardetto/solana-go"
)

// outflows computes the wallet's net outflows from the watched accounts'
// pre- and post-state: index 0 is the wallet itself, the rest are token
// accounts the wallet owned before or its wrapped-SOL account. The
// post-state already has the fee deducted from the fee payer, as validators
// return it, so it is not added.
//
// Wrapped SOL is one asset with SOL: the wallet's own wrapped-SOL accounts
// count by their lamports into Lamports, and the wrapped-SOL mint never
// appears in Tokens. Lamports moved into them and synced are no outflow
// until they leave them; a temporary one closed back to the wallet costs
// nothing.
func outflows(wallet solana.PublicKey, pre, post []*Account) (Outflows, error) {
	lam := new(big.Int).SetUint64(lamportsOf(pre[0]))
	lam.Sub(lam, new(big.Int).SetUint64(lamportsOf(post[0])))
	net := map[solana.PublicKey]*big.Int{}
	for i := 1; i < len(pre); i++ {
		before, hadBefore := ownTokenAccount(wallet, pre[i])
		after, hasAfter := ownTokenAccount(wallet, post[i])
		if isWrappedSOL(before, hadBefore) || isWrappedSOL(after, hasAfter) {
			wrappedSOLDelta(lam, pre[i], hadBefore && isWrappedSOL(before, true), post[i], hasAfter && isWrappedSOL(after, true))
			continue
		}
		if !hadBefore {
			continue
		}
		d, ok := net[before.Mint]
		if !ok {
			d = new(big.Int)
			net[before.Mint] = d
		}
		d.Add(d, new(big.Int).SetUint64(before.Amount))
		if hasAfter && after.Mint.Equals(before.Mint) {
			d.Sub(d, new(big.Int).SetUint64(after.Amount))
		}
	}
	if !lam.IsInt64() {
		return Outflows{}, fmt.Errorf("lamport outflow %s out of range", lam)
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

// ownTokenAccount decodes a token account owned by wallet.
func ownTokenAccount(wallet solana.PublicKey, a *Account) (tokenAccount, bool) {
	ta, ok := decodeTokenAccount(a)
	return ta, ok && ta.Owner.Equals(wallet)
}

func isWrappedSOL(ta tokenAccount, ok bool) bool { return ok && ta.Mint.Equals(solana.WrappedSol) }

// wrappedSOLDelta adds to lam the lamports an own wrapped-SOL account lost:
// its lamports before (when it was ours) minus after (when it still is).
// An account closed or handed to another owner counts as emptied.
func wrappedSOLDelta(lam *big.Int, pre *Account, ownBefore bool, post *Account, ownAfter bool) {
	if ownBefore {
		lam.Add(lam, new(big.Int).SetUint64(lamportsOf(pre)))
	}
	if ownAfter {
		lam.Sub(lam, new(big.Int).SetUint64(lamportsOf(post)))
	}
}

// lamportsOf returns an account's lamports, zero when it does not exist.
func lamportsOf(a *Account) uint64 {
	if a == nil {
		return 0
	}
	return a.Lamports
}
