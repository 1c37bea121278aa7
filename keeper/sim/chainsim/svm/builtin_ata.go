package svm

import "github.com/gagliardetto/solana-go"

// Compute units the Associated Token Account program uses.
const (
	ataCreateUnits   = 20_000
	ataExistingUnits = 4_000
)

// runATA executes the Associated Token Account program: Create (empty data
// or 0) and CreateIdempotent (1). Accounts: payer, associated token
// account, wallet, mint, System program, Token program.
func runATA(x *Exec, ix Instruction) error {
	idempotent, err := ataArgs(ix)
	if err != nil {
		return err
	}
	payer, ata, wallet, mint := ix.Accounts[0], ix.Accounts[1], ix.Accounts[2], ix.Accounts[3]
	if idempotent {
		x.Log("CreateIdempotent")
	} else {
		x.Log("Create")
	}
	derived, err := ataOf(wallet.PublicKey, mint.PublicKey)
	if err != nil || derived != ata.PublicKey {
		x.Log("Error: Associated address does not match seed derivation")
		return ErrInvalidSeeds
	}
	if _, err := MintOf(x.acc.get(mint.PublicKey)); err != nil {
		return err
	}
	if existing := x.acc.get(ata.PublicKey); !existing.IsEmpty() {
		if err := x.ConsumeUnits(ataExistingUnits); err != nil {
			return err
		}
		if !idempotent {
			x.Logf("Allocate: account %s already in use", ata.PublicKey)
			return CustomError(SystemErrAccountAlreadyInUse)
		}
		return checkExistingATA(existing, wallet.PublicKey, mint.PublicKey)
	}
	if err := x.ConsumeUnits(ataCreateUnits); err != nil {
		return err
	}
	if !ata.IsWritable || !payer.IsWritable {
		return ErrReadonlyLamportChange
	}
	if !payer.IsSigner {
		return ErrMissingRequiredSignature
	}
	return createATA(x, payer.PublicKey, ata.PublicKey, wallet.PublicKey, mint.PublicKey)
}

// ataArgs checks an ATA instruction's data and accounts and reports
// whether it is CreateIdempotent.
func ataArgs(ix Instruction) (bool, error) {
	idempotent := false
	switch {
	case len(ix.Data) == 0 || len(ix.Data) == 1 && ix.Data[0] == 0:
	case len(ix.Data) == 1 && ix.Data[0] == 1:
		idempotent = true
	default:
		return false, ErrInvalidInstructionData
	}
	if len(ix.Accounts) < 6 {
		return false, ErrNotEnoughAccountKeys
	}
	if ix.Accounts[5].PublicKey != solana.TokenProgramID {
		return false, ErrIncorrectProgramID
	}
	return idempotent, nil
}

// createATA creates an associated token account, charging payer its rent.
func createATA(x *Exec, payer, ata, wallet, mint solana.PublicKey) error {
	p := x.acc.get(payer)
	if p.Owner != solana.SystemProgramID || len(p.Data) != 0 {
		return ErrExternalAccountLamportSpend
	}
	if p.Lamports < TokenAccountRent {
		x.Logf("Transfer: insufficient lamports %d, need %d", p.Lamports, uint64(TokenAccountRent))
		return CustomError(SystemErrResultWithNegativeLamps)
	}
	p.Lamports -= TokenAccountRent
	x.acc.put(payer, p)
	x.acc.put(ata, NativeTokenAccount(NewTokenAccount(wallet, mint)))
	return nil
}

// checkExistingATA accepts an existing associated token account only if it
// is a token account of wallet for mint.
func checkExistingATA(a Account, wallet, mint solana.PublicKey) error {
	t, err := TokenAccountOf(a)
	if err != nil {
		return err
	}
	if t.Owner != wallet || t.Mint != mint {
		return CustomError(0) // AssociatedTokenAccountError::InvalidOwner
	}
	return nil
}
