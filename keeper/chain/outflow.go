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
	return outflowsOf(viewsOf(wallet, pre), viewsOf(wallet, post))
}

// holding is what the outflow measure needs of one watched account at one
// instant: its lamports and, when it is a token account the wallet owns,
// its mint and amount.
type holding struct {
	lamports uint64
	own      bool // a token account owned by the wallet
	mint     solana.PublicKey
	amount   uint64
}

// wrappedSOL reports whether h is one of the wallet's wrapped-SOL accounts.
func (h holding) wrappedSOL() bool { return h.own && h.mint.Equals(solana.WrappedSol) }

// viewsOf returns the holdings of accounts.
func viewsOf(wallet solana.PublicKey, accounts []*Account) []holding {
	out := make([]holding, len(accounts))
	for i, a := range accounts {
		out[i].lamports = lamportsOf(a)
		if ta, ok := ownTokenAccount(wallet, a); ok {
			out[i].own, out[i].mint, out[i].amount = true, ta.Mint, ta.Amount
		}
	}
	return out
}

// outflowsOf is outflows over holdings: index 0 is the wallet.
func outflowsOf(pre, post []holding) (Outflows, error) {
	lam := new(big.Int).SetUint64(pre[0].lamports)
	lam.Sub(lam, new(big.Int).SetUint64(post[0].lamports))
	net := map[solana.PublicKey]*big.Int{}
	for i := 1; i < len(pre); i++ {
		before, after := pre[i], post[i]
		if before.wrappedSOL() || after.wrappedSOL() {
			// An own wrapped-SOL account counts by its lamports; closed or
			// handed to another owner, it counts as emptied.
			if before.wrappedSOL() {
				lam.Add(lam, new(big.Int).SetUint64(before.lamports))
			}
			if after.wrappedSOL() {
				lam.Sub(lam, new(big.Int).SetUint64(after.lamports))
			}
			continue
		}
		if !before.own {
			continue
		}
		d, ok := net[before.mint]
		if !ok {
			d = new(big.Int)
			net[before.mint] = d
		}
		d.Add(d, new(big.Int).SetUint64(before.amount))
		if after.own && after.mint.Equals(before.mint) {
			d.Sub(d, new(big.Int).SetUint64(after.amount))
		}
	}
	if !lam.IsInt64() {
		return Outflows{}, fmt.Errorf("lamport outflow %s out of range", lam)
	}
	out := Outflows{Lamports: lam.Int64(), Tokens: make(map[solana.PublicKey]int64, len(net)),
		StrandsWallet: strandsWallet(pre[0].lamports, post[0].lamports)}
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

// lamportsOf returns an account's lamports, zero when it does not exist.
func lamportsOf(a *Account) uint64 {
	if a == nil {
		return 0
	}
	return a.Lamports
}

// WalletRentMinimum is the rent-exempt minimum of the wallet, a System
// account without data: (128 + 0) bytes × 3,480 lamports per byte-year × 2
// years, as every cluster's rent sysvar gives it.
const WalletRentMinimum = (128 + 0) * 3_480 * 2

// strandsWallet reports whether a transaction that takes the wallet from
// pre to post lamports breaks the runtime's rent rule (Agave svm
// rent_calculator.rs transition_allowed): an account may end empty or
// rent-exempt, and may end below the minimum only if it already was and
// gained nothing. Such a transaction fails on chain with
// InsufficientFundsForRent, its fee charged.
func strandsWallet(pre, post uint64) bool {
	if post == 0 || post >= WalletRentMinimum {
		return false
	}
	return pre == 0 || pre >= WalletRentMinimum || post > pre
}
