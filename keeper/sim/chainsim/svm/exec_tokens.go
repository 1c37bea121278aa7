package svm

import (
	"math"

	"github.com/gagliardetto/solana-go"
)

// Tokens are the token operations of an executing instruction. They work on associated token accounts (SPL Token) and
// stand for a CPI to the Token program: every token account and mint they
// touch must be passed to the instruction, writable where it changes. A
// wallet whose tokens leave must have signed the transaction, or be an
// off-curve address (a PDA): only a program can sign for one, and the chain
// trusts registered programs to derive theirs correctly.
type Tokens struct {
	x *Exec
}

// Balance returns wallet's balance of mint (0 without an account). The
// associated token account must be passed to the instruction.
func (tk *Tokens) Balance(wallet, mint solana.PublicKey) (uint64, error) {
	x := tk.x
	ata, err := ataOf(wallet, mint)
	if err != nil {
		return 0, err
	}
	if err := x.acc.requireAccount(ata); err != nil {
		return 0, err
	}
	a := x.acc.get(ata)
	if a.IsEmpty() {
		return 0, nil
	}
	t, err := TokenAccountOf(a)
	if err != nil {
		return 0, err
	}
	return t.Amount, nil
}

// Transfer moves amount of mint from fromWallet's associated token
// account to toWallet's, which must exist (see EnsureAccount).
func (tk *Tokens) Transfer(fromWallet, toWallet, mint solana.PublicKey, amount uint64) error {
	x := tk.x
	src, srcT, err := tk.debitable(fromWallet, mint)
	if err != nil {
		return err
	}
	dst, dstT, err := tk.creditable(toWallet, mint)
	if err != nil {
		return err
	}
	return moveTokens(x, src, dst, srcT, dstT, amount)
}

// creditable returns wallet's associated token account of mint, which must
// exist and be writable in the instruction, and its state.
func (tk *Tokens) creditable(wallet, mint solana.PublicKey) (solana.PublicKey, tokenAccount, error) {
	x := tk.x
	dst, err := ataOf(wallet, mint)
	if err != nil {
		return dst, tokenAccount{}, err
	}
	if err := x.acc.requireWritable(dst, ErrReadonlyDataModified); err != nil {
		return dst, tokenAccount{}, err
	}
	t, err := TokenAccountOf(x.acc.get(dst))
	return dst, t, err
}

// Mint mints amount of mint to toWallet's associated token account.
// The mint and the token account must be writable in the instruction; the
// mint's authority is not checked (registered programs are trusted).
func (tk *Tokens) Mint(toWallet, mint solana.PublicKey, amount uint64) error {
	dst, t, m, err := tk.withMint(toWallet, mint, tk.creditable)
	if err != nil {
		return err
	}
	if t.Mint != mint {
		return CustomError(tokenErrMintMismatch)
	}
	if m.Supply > math.MaxUint64-amount || t.Amount > math.MaxUint64-amount {
		return CustomError(tokenErrOverflow)
	}
	m.Supply += amount
	t.Amount += amount
	tk.x.acc.putToken(dst, t)
	tk.x.acc.putMint(mint, m)
	return nil
}

// Burn burns amount of mint from fromWallet's associated token account.
func (tk *Tokens) Burn(fromWallet, mint solana.PublicKey, amount uint64) error {
	src, t, m, err := tk.withMint(fromWallet, mint, tk.debitable)
	if err != nil {
		return err
	}
	return burn(tk.x, src, mint, t, m, amount)
}

// withMint checks that mint is writable in the instruction and returns
// wallet's token account of it, as account (creditable or debitable) finds
// it, with the mint's state.
func (tk *Tokens) withMint(wallet, mint solana.PublicKey, account func(wallet, mint solana.PublicKey) (solana.PublicKey, tokenAccount, error)) (solana.PublicKey, tokenAccount, MintState, error) {
	x := tk.x
	if err := x.acc.requireWritable(mint, ErrReadonlyDataModified); err != nil {
		return solana.PublicKey{}, tokenAccount{}, MintState{}, err
	}
	key, t, err := account(wallet, mint)
	if err != nil {
		return key, t, MintState{}, err
	}
	m, err := MintOf(x.acc.get(mint))
	return key, t, m, err
}

// EnsureAccount creates wallet's associated token account for mint if
// it does not exist, charging payer (a signing, writable System account) the
// rent-exempt minimum. The mint and the token account must be passed to the
// instruction, the token account writable.
func (tk *Tokens) EnsureAccount(payer, wallet, mint solana.PublicKey) error {
	x := tk.x
	ata, err := ataOf(wallet, mint)
	if err != nil {
		return err
	}
	if err := x.acc.requireWritable(ata, ErrReadonlyDataModified); err != nil {
		return err
	}
	if err := x.acc.requireAccount(mint); err != nil {
		return err
	}
	if !x.acc.get(ata).IsEmpty() {
		return checkExistingATA(x.acc.get(ata), solana.TokenProgramID, wallet, mint)
	}
	if err := x.acc.requireWritable(payer, ErrReadonlyLamportChange); err != nil {
		return err
	}
	if !x.IsSigner(payer) {
		return ErrMissingRequiredSignature
	}
	return createATA(x, payer, ata, newATA(solana.TokenProgramID, wallet, mint))
}

// debitable returns wallet's token account for mint after checking that the
// instruction may take tokens out of it.
func (tk *Tokens) debitable(wallet, mint solana.PublicKey) (solana.PublicKey, tokenAccount, error) {
	x := tk.x
	if err := x.acc.requireAccount(wallet); err != nil {
		return solana.PublicKey{}, tokenAccount{}, err
	}
	if !x.IsSigner(wallet) && wallet.IsOnCurve() {
		return solana.PublicKey{}, tokenAccount{}, ErrMissingRequiredSignature
	}
	src, t, err := tk.creditable(wallet, mint)
	if err != nil {
		return src, t, err
	}
	if t.Owner != wallet {
		return src, t, CustomError(TokenErrOwnerMismatch)
	}
	return src, t, nil
}

// ataOf derives an associated token address, failing the instruction if it
// cannot be derived.
func ataOf(wallet, mint solana.PublicKey) (solana.PublicKey, error) {
	a, err := AssociatedTokenAddress(wallet, mint)
	if err != nil {
		return a, ErrInvalidSeeds
	}
	return a, nil
}

// moveTokens moves amount between two decoded token accounts after the
// caller checked the authority: mints must match, neither may be frozen.
func moveTokens(x *Exec, src, dst solana.PublicKey, srcT, dstT tokenAccount, amount uint64) error {
	switch {
	case srcT.state == tokenStateFrozen || dstT.state == tokenStateFrozen:
		return CustomError(tokenErrAccountFrozen)
	case srcT.Mint != dstT.Mint:
		return CustomError(tokenErrMintMismatch)
	case srcT.Amount < amount:
		return CustomError(TokenErrInsufficientFunds)
	case src == dst:
		x.acc.putToken(src, srcT) // keeps a delegate's spend from the caller
		return nil
	case dstT.Amount > math.MaxUint64-amount:
		return CustomError(tokenErrOverflow)
	}
	if err := moveNativeLamports(x, src, dst, srcT, amount); err != nil {
		return err
	}
	srcT.Amount -= amount
	dstT.Amount += amount
	x.acc.putToken(src, srcT)
	x.acc.putToken(dst, dstT)
	return nil
}

// burn removes amount from a token account and its mint's supply.
func burn(x *Exec, src, mint solana.PublicKey, t tokenAccount, m MintState, amount uint64) error {
	switch {
	case t.state == tokenStateFrozen:
		return CustomError(tokenErrAccountFrozen)
	case t.Mint != mint:
		return CustomError(tokenErrMintMismatch)
	case t.Amount < amount:
		return CustomError(TokenErrInsufficientFunds)
	case m.Supply < amount:
		return CustomError(tokenErrOverflow)
	}
	t.Amount -= amount
	m.Supply -= amount
	x.acc.putToken(src, t)
	x.acc.putMint(mint, m)
	return nil
}
