package svm

import "github.com/gagliardetto/solana-go"

// Wrapped SOL, as the SPL Token program implements it: a token account of
// the native mint holds its amount as lamports above its rent-exempt
// reserve (is_native); SyncNative brings the amount up to the lamports; a
// transfer out of it moves lamports with the tokens; closing it returns
// every lamport. The native mint exists from genesis.

// tokenErrNonNativeNotSupported is TokenError::NonNativeNotSupported.
const tokenErrNonNativeNotSupported = 19

// NativeMintAccount is the native mint as it exists on every cluster: 9
// decimals, no mint or freeze authority.
func NativeMintAccount() *Account {
	m := MintState{Decimals: 9, Initialized: true}
	return &Account{Lamports: MintRent, Owner: solana.TokenProgramID, Data: m.Encode()}
}

// NativeTokenAccount marks a new token account of the native mint as
// native: its rent-exempt reserve is recorded and its amount is what its
// lamports hold above it.
func NativeTokenAccount(a Account) Account {
	t, ok := DecodeTokenAccount(a.Data)
	if !ok || t.Mint != solana.WrappedSol {
		return a
	}
	reserve := uint64(TokenAccountRent)
	t.IsNative = &reserve
	t.Amount = a.Lamports - min(a.Lamports, reserve)
	a.Data = t.Encode()
	return a
}

// tokenSyncNative is SyncNative: account. The amount of a native account
// becomes its lamports above the reserve; it never goes down.
func tokenSyncNative(x *Exec, a []solana.AccountMeta, _ []byte) error {
	acct := a[0]
	if !acct.IsWritable {
		return ErrInvalidArgument
	}
	raw := x.acc.get(acct.PublicKey)
	t, err := TokenAccountOf(raw)
	if err != nil {
		return err
	}
	if t.IsNative == nil {
		return CustomError(tokenErrNonNativeNotSupported)
	}
	amount := raw.Lamports - min(raw.Lamports, *t.IsNative)
	if amount < t.Amount {
		return ErrInvalidAccountData
	}
	t.Amount = amount
	x.acc.putToken(acct.PublicKey, t)
	return nil
}

// moveNativeLamports moves the lamports behind amount tokens of a native
// source account, as the Token program does on a transfer.
func moveNativeLamports(x *Exec, src, dst solana.PublicKey, srcT tokenAccount, amount uint64) error {
	if srcT.IsNative == nil {
		return nil
	}
	return moveLamports(x, src, dst, amount, ErrInsufficientFunds)
}
