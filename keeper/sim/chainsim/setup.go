package chainsim

import (
	"fmt"
	"math"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// Setup creates what a scenario starts with: funded wallets, mints, token
// balances, lookup tables, nonce accounts and registered programs. Its
// writes go to the chain's State.
type Setup struct {
	c *Chain
}

// Fund adds lamports to wallet, creating it as a System account if needed.
func (s *Setup) Fund(wallet solana.PublicKey, lamports uint64) error {
	s.c.lock()
	defer s.c.unlock()
	st := s.c.State
	st.willWrite()
	a := svm.Load(st.accounts, wallet)
	if a.Lamports > math.MaxUint64-lamports {
		return fmt.Errorf("chainsim: fund %s: balance would overflow", wallet)
	}
	a.Lamports += lamports
	st.accounts[wallet] = &a
	return nil
}

// CreateMint creates an SPL Token mint with the given decimals, no mint
// authority (only MintTo and registered programs mint) and no freeze
// authority.
func (s *Setup) CreateMint(mint solana.PublicKey, decimals uint8) error {
	s.c.lock()
	defer s.c.unlock()
	st := s.c.State
	st.willWrite()
	if mint == solana.WrappedSol && decimals == 9 {
		return nil // the native mint exists from genesis
	}
	if a, ok := st.accounts[mint]; ok && !a.IsEmpty() {
		return fmt.Errorf("chainsim: create mint %s: an account exists at that address", mint)
	}
	m := svm.MintState{Decimals: decimals, Initialized: true}
	st.accounts[mint] = &svm.Account{Lamports: svm.MintRent, Owner: solana.TokenProgramID, Data: m.Encode()}
	return nil
}

// MintTo mints amount of mint into wallet's associated token account,
// creating the account if needed. Of the native mint it wraps: the account
// is a native one and amount lamports back the tokens, as if wallet had
// wrapped them.
func (s *Setup) MintTo(wallet, mint solana.PublicKey, amount uint64) error {
	s.c.lock()
	defer s.c.unlock()
	st := s.c.State
	st.willWrite()
	m, err := svm.MintOf(svm.Load(st.accounts, mint))
	if err != nil {
		return fmt.Errorf("chainsim: mint to %s: %s is not a mint: %w", wallet, mint, err)
	}
	ata, err := svm.AssociatedTokenAddress(wallet, mint)
	if err != nil {
		return err
	}
	acct := svm.Load(st.accounts, ata)
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
	mintAcct := svm.Load(st.accounts, mint)
	mintAcct.Data = m.Encode()
	st.accounts[ata], st.accounts[mint] = &acct, &mintAcct
	return nil
}

// CreateLookupTable stores an active address lookup table at key holding
// addrs (at most 256), for v0 transactions to load accounts from.
func (s *Setup) CreateLookupTable(key, authority solana.PublicKey, addrs []solana.PublicKey) error {
	if len(addrs) > 256 {
		return fmt.Errorf("chainsim: create lookup table %s: %d addresses, more than 256", key, len(addrs))
	}
	s.c.State.SetAccount(key, svm.Account{Lamports: 1, Owner: solana.AddressLookupTableProgramID, Data: svm.EncodeLookupTable(authority, addrs)})
	return nil
}

// CreateNonceAccount stores an initialized durable nonce account at key
// with the given authority and lamports, and returns its nonce value (the
// blockhash a nonce transaction must carry).
func (s *Setup) CreateNonceAccount(key, authority solana.PublicKey, lamports uint64) solana.Hash {
	s.c.lock()
	defer s.c.unlock()
	st := s.c.State
	n := svm.NonceState{Authority: authority, Nonce: svm.DurableNonceFrom(s.c.Ledger.tip.Hash)}
	st.accounts[key] = &svm.Account{Lamports: lamports, Owner: solana.SystemProgramID, Data: n.Encode()}
	st.willWrite()
	return n.Nonce
}

// RegisterProgram deploys a program at id. The id must not be a built-in
// program or already registered.
func (s *Setup) RegisterProgram(id solana.PublicKey, p svm.Program) error {
	if p == nil {
		return fmt.Errorf("chainsim: register program %s: nil program", id)
	}
	s.c.lock()
	defer s.c.unlock()
	st, programs := s.c.State, s.c.rt.programs
	if _, ok := svm.Builtins[id]; ok {
		return fmt.Errorf("chainsim: register program %s: a built-in program has that id", id)
	}
	if _, ok := programs[id]; ok {
		return fmt.Errorf("chainsim: register program %s: already registered", id)
	}
	if a, ok := st.accounts[id]; ok && !a.IsEmpty() {
		return fmt.Errorf("chainsim: register program %s: an account exists at that address", id)
	}
	programs[id] = p
	st.accounts[id] = &svm.Account{Lamports: 1, Owner: solana.BPFLoaderUpgradeableProgramID, Executable: true}
	st.willWrite()
	return nil
}
