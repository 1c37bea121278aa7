package svm

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// tokenOp is one SPL Token instruction the chain implements.
type tokenOp struct {
	name     string
	units    uint64
	accounts int
	run      func(x *Exec, a []solana.AccountMeta, d []byte) error
}

// tokenOps maps instruction tags to their implementation.
var tokenOps = map[byte]tokenOp{
	3:  {"Transfer", 4_644, 3, tokenTransfer},
	4:  {"Approve", 2_904, 3, tokenApprove},
	5:  {"Revoke", 2_700, 2, tokenRevoke},
	6:  {"SetAuthority", 3_000, 2, tokenSetAuthority},
	8:  {"Burn", 4_753, 3, tokenBurn},
	9:  {"CloseAccount", 2_916, 3, tokenClose},
	17: {"SyncNative", 3_045, 1, tokenSyncNative},
	12: {"TransferChecked", 6_200, 4, tokenTransferChecked},
	15: {"BurnChecked", 4_800, 3, tokenBurnChecked},
}

// runToken executes the SPL Token program's instructions that the chain
// implements; others fail with InvalidInstructionData and a log line.
func runToken(x *Exec, ix Instruction) error {
	if len(ix.Data) == 0 {
		return CustomError(tokenErrInvalidInstruction)
	}
	op, ok := tokenOps[ix.Data[0]]
	if !ok {
		x.Logf("Error: chainsim does not simulate token instruction %d", ix.Data[0])
		return ErrInvalidInstructionData
	}
	x.Log("Instruction: " + op.name)
	if err := x.ConsumeUnits(op.units); err != nil {
		return err
	}
	if len(ix.Accounts) < op.accounts {
		return ErrNotEnoughAccountKeys
	}
	return op.run(x, ix.Accounts, ix.Data)
}

// amountArg decodes the u64 amount after the tag; checked instructions
// carry a decimals byte after it.
func amountArg(d []byte, checked bool) (uint64, uint8, error) {
	want := 9
	if checked {
		want = 10
	}
	if len(d) != want {
		return 0, 0, CustomError(tokenErrInvalidInstruction)
	}
	var decimals uint8
	if checked {
		decimals = d[9]
	}
	return binary.LittleEndian.Uint64(d[1:9]), decimals, nil
}

// writable fails with ReadonlyDataModified unless every meta is writable.
func writable(metas ...solana.AccountMeta) error {
	for _, m := range metas {
		if !m.IsWritable {
			return ErrReadonlyDataModified
		}
	}
	return nil
}

// authorizeSpend checks that auth may move amount out of t: its owner, or
// its delegate within the allowance (which it uses up); auth must sign.
func authorizeSpend(t tokenAccount, auth solana.AccountMeta, amount uint64) (tokenAccount, error) {
	switch {
	case auth.PublicKey == t.Owner:
	case t.delegate != nil && *t.delegate == auth.PublicKey:
		if t.delegatedAmount < amount {
			return t, CustomError(TokenErrInsufficientFunds)
		}
		t.delegatedAmount -= amount
		if t.delegatedAmount == 0 {
			t.delegate = nil
		}
	default:
		return t, CustomError(TokenErrOwnerMismatch)
	}
	if !auth.IsSigner {
		return t, ErrMissingRequiredSignature
	}
	return t, nil
}

// tokenTransfer is Transfer: source, destination, authority.
func tokenTransfer(x *Exec, a []solana.AccountMeta, d []byte) error {
	amount, _, err := amountArg(d, false)
	if err != nil {
		return err
	}
	return transferChecked(x, a[0], a[1], a[2], amount, nil)
}

// tokenTransferChecked is TransferChecked: source, mint, destination,
// authority; the mint and its decimals must match.
func tokenTransferChecked(x *Exec, a []solana.AccountMeta, d []byte) error {
	amount, decimals, err := amountArg(d, true)
	if err != nil {
		return err
	}
	mint := a[1].PublicKey
	m, err := MintOf(x.acc.get(mint))
	if err != nil {
		return err
	}
	if m.Decimals != decimals {
		return CustomError(TokenErrMintDecimalsMismatch)
	}
	return transferChecked(x, a[0], a[2], a[3], amount, &mint)
}

// transferChecked moves tokens after checking accounts and authority; a
// non-nil mint must be the source's mint.
func transferChecked(x *Exec, src, dst, auth solana.AccountMeta, amount uint64, mint *solana.PublicKey) error {
	if err := writable(src, dst); err != nil {
		return err
	}
	srcT, err := TokenAccountOf(x.acc.get(src.PublicKey))
	if err != nil {
		return err
	}
	dstT, err := TokenAccountOf(x.acc.get(dst.PublicKey))
	if err != nil {
		return err
	}
	if mint != nil && srcT.Mint != *mint {
		return CustomError(tokenErrMintMismatch)
	}
	if srcT, err = authorizeSpend(srcT, auth, amount); err != nil {
		return err
	}
	return moveTokens(x, src.PublicKey, dst.PublicKey, srcT, dstT, amount)
}

// tokenApprove is Approve: source, delegate, owner.
func tokenApprove(x *Exec, a []solana.AccountMeta, d []byte) error {
	amount, _, err := amountArg(d, false)
	if err != nil {
		return err
	}
	t, err := ownedBy(x, a[0], a[2])
	if err != nil {
		return err
	}
	delegate := a[1].PublicKey
	t.delegate, t.delegatedAmount = &delegate, amount
	x.acc.putToken(a[0].PublicKey, t)
	return nil
}

// tokenRevoke is Revoke: source, owner.
func tokenRevoke(x *Exec, a []solana.AccountMeta, d []byte) error {
	if len(d) != 1 {
		return CustomError(tokenErrInvalidInstruction)
	}
	t, err := ownedBy(x, a[0], a[1])
	if err != nil {
		return err
	}
	t.delegate, t.delegatedAmount = nil, 0
	x.acc.putToken(a[0].PublicKey, t)
	return nil
}

// ownedBy decodes a writable, unfrozen token account whose owner signed.
func ownedBy(x *Exec, acct, owner solana.AccountMeta) (tokenAccount, error) {
	if err := writable(acct); err != nil {
		return tokenAccount{}, err
	}
	t, err := TokenAccountOf(x.acc.get(acct.PublicKey))
	switch {
	case err != nil:
		return t, err
	case t.state == tokenStateFrozen:
		return t, CustomError(tokenErrAccountFrozen)
	case owner.PublicKey != t.Owner:
		return t, CustomError(TokenErrOwnerMismatch)
	case !owner.IsSigner:
		return t, ErrMissingRequiredSignature
	}
	return t, nil
}

// tokenBurn is Burn: account, mint, authority.
func tokenBurn(x *Exec, a []solana.AccountMeta, d []byte) error {
	amount, _, err := amountArg(d, false)
	if err != nil {
		return err
	}
	return burnChecked(x, a, amount, nil)
}

// tokenBurnChecked is BurnChecked: account, mint, authority.
func tokenBurnChecked(x *Exec, a []solana.AccountMeta, d []byte) error {
	amount, decimals, err := amountArg(d, true)
	if err != nil {
		return err
	}
	return burnChecked(x, a, amount, &decimals)
}

// burnChecked burns after checking accounts, authority and, if given, the
// mint's decimals.
func burnChecked(x *Exec, a []solana.AccountMeta, amount uint64, decimals *uint8) error {
	acct, mint, auth := a[0], a[1], a[2]
	if err := writable(acct, mint); err != nil {
		return err
	}
	t, err := TokenAccountOf(x.acc.get(acct.PublicKey))
	if err != nil {
		return err
	}
	m, err := MintOf(x.acc.get(mint.PublicKey))
	if err != nil {
		return err
	}
	if decimals != nil && m.Decimals != *decimals {
		return CustomError(TokenErrMintDecimalsMismatch)
	}
	if t.Mint != mint.PublicKey {
		return CustomError(tokenErrMintMismatch)
	}
	if t, err = authorizeSpend(t, auth, amount); err != nil {
		return err
	}
	return burn(x, acct.PublicKey, mint.PublicKey, t, m, amount)
}

// tokenClose is CloseAccount: account, destination, authority. The account
// must be empty; its lamports go to the destination.
func tokenClose(x *Exec, a []solana.AccountMeta, d []byte) error {
	acct, dest, auth := a[0], a[1], a[2]
	if len(d) != 1 {
		return CustomError(tokenErrInvalidInstruction)
	}
	if err := writable(acct, dest); err != nil {
		return err
	}
	t, err := TokenAccountOf(x.acc.get(acct.PublicKey))
	if err != nil {
		return err
	}
	authority := t.Owner
	if t.closeAuthority != nil {
		authority = *t.closeAuthority
	}
	switch {
	case t.IsNative == nil && t.Amount != 0:
		return CustomError(TokenErrNonNativeHasBalance)
	case auth.PublicKey != authority:
		return CustomError(TokenErrOwnerMismatch)
	case !auth.IsSigner:
		return ErrMissingRequiredSignature
	case acct.PublicKey == dest.PublicKey:
		return ErrInvalidAccountData
	}
	if err := moveLamports(x, acct.PublicKey, dest.PublicKey, x.acc.get(acct.PublicKey).Lamports, ErrInsufficientFunds); err != nil {
		return err
	}
	x.acc.del(acct.PublicKey)
	return nil
}
