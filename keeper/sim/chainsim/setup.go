package chainsim

import (
	"fmt"
	"math"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// Fund adds lamports to wallet, creating it as a System account if needed.
func (c *Chain) Fund(wallet solana.PublicKey, lamports uint64) error {
	c.lock()
	defer c.unlock()
	c.writes++
	a := svm.Load(c.accounts, wallet)
	if a.Lamports > math.MaxUint64-lamports {
		return fmt.Errorf("chainsim: fund %s: balance would overflow", wallet)
	}
	a.Lamports += lamports
	c.accounts[wallet] = &a
	return nil
}

// CreateMint creates an SPL Token mint with the given decimals, no mint
// authority (only MintTo and registered programs mint) and no freeze
// authority.
func (c *Chain) CreateMint(mint solana.PublicKey, decimals uint8) error {
	c.lock()
	defer c.unlock()
	c.writes++
	if mint == solana.WrappedSol && decimals == 9 {
		return nil // the native mint exists from genesis
	}
	if a, ok := c.accounts[mint]; ok && !a.IsEmpty() {
		return fmt.Errorf("chainsim: create mint %s: an account exists at that address", mint)
	}
	m := svm.MintState{Decimals: decimals, Initialized: true}
	c.accounts[mint] = &svm.Account{Lamports: svm.MintRent, Owner: solana.TokenProgramID, Data: m.Encode()}
	return nil
}

// MintTo mints amount of mint into wallet's associated token account,
// creating the account if needed. Of the native mint it wraps: the account
// is a native one and amount lamports back the tokens, as if wallet had
// wrapped them.
func (c *Chain) MintTo(wallet, mint solana.PublicKey, amount uint64) error {
	c.lock()
	defer c.unlock()
	c.writes++
	m, err := svm.MintOf(svm.Load(c.accounts, mint))
	if err != nil {
		return fmt.Errorf("chainsim: mint to %s: %s is not a mint: %w", wallet, mint, err)
	}
	ata, err := svm.AssociatedTokenAddress(wallet, mint)
	if err != nil {
		return err
	}
	acct := svm.Load(c.accounts, ata)
	if acct.IsEmpty() {
		acct = svm.NativeTokenAccount(svm.NewTokenAccount(wallet, mint))
	}
	if mint == solana.WrappedSol {
		acct.Lamports += amount
	}
	t, err := svm.TokenAccountOf(acct)
	if err != nil || t.Mint != mint {
		return fmt.Errorf("chainsim: mint to %s: %s is not a token account of mint %s", wallet, ata, mint)
	}
	if t.Amount > math.MaxUint64-amount || m.Supply > math.MaxUint64-amount {
		return fmt.Errorf("chainsim: mint to %s: amount overflows", wallet)
	}
	t.Amount += amount
	m.Supply += amount
	acct.Data = t.Encode()
	mintAcct := svm.Load(c.accounts, mint)
	mintAcct.Data = m.Encode()
	c.accounts[ata], c.accounts[mint] = &acct, &mintAcct
	return nil
}

// SetAccount stores an account as given (for example a CLMM pool or
// position laid out by the caller). An account with no lamports, no data
// and no owner removes the address.
func (c *Chain) SetAccount(key solana.PublicKey, a svm.Account) {
	c.lock()
	defer c.unlock()
	c.writes++
	if a.Lamports == 0 && len(a.Data) == 0 && a.Owner.IsZero() {
		delete(c.accounts, key)
		return
	}
	cp := a.Clone()
	c.accounts[key] = &cp
}

// Account returns a copy of key's account.
func (c *Chain) Account(key solana.PublicKey) (svm.Account, bool) {
	c.lock()
	defer c.unlock()
	a, ok := c.accounts[key]
	if !ok {
		return svm.Account{}, false
	}
	return a.Clone(), true
}

// Balance returns wallet's lamports (0 without an account).
func (c *Chain) Balance(wallet solana.PublicKey) uint64 {
	c.lock()
	defer c.unlock()
	return svm.LamportsOf(c.accounts, wallet)
}

// TokenBalance returns wallet's balance of mint in its associated token
// account (0 without one).
func (c *Chain) TokenBalance(wallet, mint solana.PublicKey) uint64 {
	ata, err := svm.AssociatedTokenAddress(wallet, mint)
	if err != nil {
		return 0
	}
	c.lock()
	defer c.unlock()
	t, ok := svm.DecodeTokenAccount(svm.Load(c.accounts, ata).Data)
	if !ok {
		return 0
	}
	return t.Amount
}

// CreateLookupTable stores an active address lookup table at key holding
// addrs (at most 256), for v0 transactions to load accounts from.
func (c *Chain) CreateLookupTable(key, authority solana.PublicKey, addrs []solana.PublicKey) error {
	if len(addrs) > 256 {
		return fmt.Errorf("chainsim: create lookup table %s: %d addresses, more than 256", key, len(addrs))
	}
	c.SetAccount(key, svm.Account{Lamports: 1, Owner: solana.AddressLookupTableProgramID, Data: svm.EncodeLookupTable(authority, addrs)})
	return nil
}

// CreateNonceAccount stores an initialized durable nonce account at key
// with the given authority and lamports, and returns its nonce value (the
// blockhash a nonce transaction must carry).
func (c *Chain) CreateNonceAccount(key, authority solana.PublicKey, lamports uint64) solana.Hash {
	c.lock()
	defer c.unlock()
	n := svm.NonceState{Authority: authority, Nonce: svm.DurableNonceFrom(c.tip.Hash)}
	c.accounts[key] = &svm.Account{Lamports: lamports, Owner: solana.SystemProgramID, Data: n.Encode()}
	c.writes++
	return n.Nonce
}

// StateVersion counts the changes of the chain's accounts so far: every landed transaction (which at
// least charges its fee) and every setup or external write. Two equal versions mean the same
// accounts, so a reader may cache what it derived from them.
func (c *Chain) StateVersion() uint64 {
	c.lock()
	defer c.unlock()
	return c.writes
}
