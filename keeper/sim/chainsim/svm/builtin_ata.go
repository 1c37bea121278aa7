package svm

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// Compute units the Associated Token Account program uses.
const (
	ataCreateUnits   = 20_000
	ataExistingUnits = 4_000
)

// Token-2022's layout of an associated token account: the SPL Token account,
// its account-type byte, and the ImmutableOwner extension the ATA program
// asks for (a TLV entry of type 7 and length 0).
const (
	token2022AccountType    = 2
	token2022ImmutableOwner = 7
	// Token2022AccountSize is the size of a Token-2022 associated token
	// account of a mint without extensions.
	Token2022AccountSize = TokenAccountSize + 1 + 4
)

// runATA executes the Associated Token Account program: Create (empty data
// or 0) and CreateIdempotent (1). Accounts: payer, associated token
// account, wallet, mint, System program, token program (SPL Token or
// Token-2022, the one that owns the mint).
func runATA(x *Exec, ix Instruction) error {
	idempotent, err := ataArgs(ix)
	if err != nil {
		return err
	}
	payer, ata, wallet, mint, program := ix.Accounts[0], ix.Accounts[1], ix.Accounts[2], ix.Accounts[3], ix.Accounts[5].PublicKey
	if idempotent {
		x.Log("CreateIdempotent")
	} else {
		x.Log("Create")
	}
	derived, err := AssociatedTokenAddressOf(wallet.PublicKey, program, mint.PublicKey)
	if err != nil || derived != ata.PublicKey {
		x.Log("Error: Associated address does not match seed derivation")
		return ErrInvalidSeeds
	}
	if _, err := mintUnder(x.acc.get(mint.PublicKey), program); err != nil {
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
		return checkExistingATA(existing, program, wallet.PublicKey, mint.PublicKey)
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
	return createATA(x, payer.PublicKey, ata.PublicKey, newATA(program, wallet.PublicKey, mint.PublicKey))
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
	if p := ix.Accounts[5].PublicKey; p != solana.TokenProgramID && p != solana.Token2022ProgramID {
		return false, ErrIncorrectProgramID
	}
	return idempotent, nil
}

// mintUnder decodes an initialized mint owned by program, with the token
// program's errors. A Token-2022 mint may carry extensions after the SPL
// Token layout; its base is the same 82 bytes.
func mintUnder(a Account, program solana.PublicKey) (MintState, error) {
	if program == solana.TokenProgramID {
		return MintOf(a)
	}
	if a.Owner != program {
		return MintState{}, ErrIncorrectProgramID
	}
	if len(a.Data) > MintSize {
		a.Data = a.Data[:MintSize]
	}
	a.Owner = solana.TokenProgramID
	return MintOf(a)
}

// newATA returns a fresh associated token account of wallet for mint under
// program, rent-exempt: for Token-2022 with the ImmutableOwner extension
// the ATA program initializes.
func newATA(program, wallet, mint solana.PublicKey) Account {
	a := NativeTokenAccount(NewTokenAccount(wallet, mint))
	if program == solana.TokenProgramID {
		return a
	}
	ext := make([]byte, Token2022AccountSize-TokenAccountSize)
	ext[0] = token2022AccountType
	binary.LittleEndian.PutUint16(ext[1:3], token2022ImmutableOwner)
	a.Data = append(a.Data, ext...)
	a.Owner = program
	a.Lamports = RentExemptMinimum(len(a.Data))
	return a
}

// createATA creates an associated token account, charging payer its rent.
func createATA(x *Exec, payer, ata solana.PublicKey, acct Account) error {
	p := x.acc.get(payer)
	if p.Owner != solana.SystemProgramID || len(p.Data) != 0 {
		return ErrExternalAccountLamportSpend
	}
	if p.Lamports < acct.Lamports {
		x.Logf("Transfer: insufficient lamports %d, need %d", p.Lamports, acct.Lamports)
		return CustomError(SystemErrResultWithNegativeLamps)
	}
	p.Lamports -= acct.Lamports
	x.acc.put(payer, p)
	x.acc.put(ata, acct)
	return nil
}

// checkExistingATA accepts an existing associated token account only if
// program owns it and it is a token account of wallet for mint.
func checkExistingATA(a Account, program, wallet, mint solana.PublicKey) error {
	if a.Owner != program {
		return ErrIllegalOwner
	}
	if program != solana.TokenProgramID && len(a.Data) > TokenAccountSize {
		a.Data, a.Owner = a.Data[:TokenAccountSize], solana.TokenProgramID
	}
	t, err := TokenAccountOf(a)
	if err != nil {
		return err
	}
	if t.Owner != wallet || t.Mint != mint {
		return CustomError(0) // AssociatedTokenAccountError::InvalidOwner
	}
	return nil
}
