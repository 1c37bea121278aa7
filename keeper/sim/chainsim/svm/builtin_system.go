package svm

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// System program instruction tags (u32, little-endian).
const (
	systemCreateAccount = 0
	systemTransfer      = 2
	systemAdvanceNonce  = 4
)

// SystemUnits is what every System instruction costs.
const SystemUnits = 150

// MaxAccountSpace is the largest account CreateAccount may allocate.
const MaxAccountSpace = 10 * 1024 * 1024

// runSystem executes the System program's Transfer, CreateAccount and
// AdvanceNonceAccount; other instructions fail with InvalidInstructionData.
func runSystem(x *Exec, ix Instruction) error {
	if err := x.ConsumeUnits(SystemUnits); err != nil {
		return err
	}
	if len(ix.Data) < 4 {
		return ErrInvalidInstructionData
	}
	switch tag := binary.LittleEndian.Uint32(ix.Data); tag {
	case systemTransfer:
		return systemTransferIx(x, ix)
	case systemCreateAccount:
		return systemCreateAccountIx(x, ix)
	case systemAdvanceNonce:
		return advanceNonceIx(x, ix)
	default:
		x.Logf("Error: chainsim does not simulate system instruction %d", tag)
		return ErrInvalidInstructionData
	}
}

// systemTransferIx is Transfer{lamports u64}: from (signer), to.
func systemTransferIx(x *Exec, ix Instruction) error {
	if err := checkShape(ix, 12, 2); err != nil {
		return err
	}
	lamports := binary.LittleEndian.Uint64(ix.Data[4:])
	from, to := ix.Accounts[0], ix.Accounts[1]
	if err := debitCheck(x, from, lamports); err != nil {
		return err
	}
	if !to.IsWritable {
		return ErrReadonlyLamportChange
	}
	return moveLamports(x, from.PublicKey, to.PublicKey, lamports, CustomError(SystemErrResultWithNegativeLamps))
}

// checkShape fails an instruction whose data is not dataLen bytes long or
// that has fewer than accounts accounts.
func checkShape(ix Instruction, dataLen, accounts int) error {
	if len(ix.Data) != dataLen {
		return ErrInvalidInstructionData
	}
	if len(ix.Accounts) < accounts {
		return ErrNotEnoughAccountKeys
	}
	return nil
}

// debitCheck applies the System program's checks on a funding account.
func debitCheck(x *Exec, from solana.AccountMeta, lamports uint64) error {
	if !from.IsSigner {
		x.Logf("Transfer: `from` account %s must sign", from.PublicKey)
		return ErrMissingRequiredSignature
	}
	if !from.IsWritable {
		return ErrReadonlyLamportChange
	}
	src := x.acc.get(from.PublicKey)
	if len(src.Data) != 0 {
		x.Log("Transfer: `from` must not carry data")
		return ErrInvalidArgument
	}
	if src.Owner != solana.SystemProgramID {
		return ErrExternalAccountLamportSpend
	}
	if src.Lamports < lamports {
		x.Logf("Transfer: insufficient lamports %d, need %d", src.Lamports, lamports)
		return CustomError(SystemErrResultWithNegativeLamps)
	}
	return nil
}

// systemCreateAccountIx is CreateAccount{lamports u64, space u64, owner}:
// funding account (signer), new account (signer).
func systemCreateAccountIx(x *Exec, ix Instruction) error {
	if err := checkShape(ix, 52, 2); err != nil {
		return err
	}
	lamports := binary.LittleEndian.Uint64(ix.Data[4:])
	space := binary.LittleEndian.Uint64(ix.Data[12:])
	owner := solana.PublicKeyFromBytes(ix.Data[20:52])
	from, to := ix.Accounts[0], ix.Accounts[1]
	if !to.IsSigner {
		x.Logf("Create Account: account %s must sign", to.PublicKey)
		return ErrMissingRequiredSignature
	}
	if !to.IsWritable {
		return ErrReadonlyDataModified
	}
	if existing := x.acc.get(to.PublicKey); !existing.IsEmpty() {
		x.Logf("Create Account: account Address { address: %s, base: None } already in use", to.PublicKey)
		return CustomError(SystemErrAccountAlreadyInUse)
	}
	if space > MaxAccountSpace {
		return CustomError(systemErrInvalidAccountDataLength)
	}
	if err := debitCheck(x, from, lamports); err != nil {
		return err
	}
	if err := moveLamports(x, from.PublicKey, to.PublicKey, lamports, CustomError(SystemErrResultWithNegativeLamps)); err != nil {
		return err
	}
	created := x.acc.get(to.PublicKey)
	created.Owner, created.Data = owner, make([]byte, space)
	x.acc.put(to.PublicKey, created)
	return nil
}

// runComputeBudget accepts ComputeBudget instructions, which were checked
// and applied before execution.
func runComputeBudget(x *Exec, _ Instruction) error {
	return x.ConsumeUnits(SystemUnits)
}
