package svm

import (
	"bytes"
	"math"

	"github.com/gagliardetto/solana-go"
)

// Account returns a copy of key's account, which must be passed to the
// instruction (ErrMissingAccount otherwise). An address without an account
// reads as an empty System account, as on chain.
func (x *Exec) Account(key solana.PublicKey) (Account, error) {
	if err := x.acc.requireAccount(key); err != nil {
		return Account{}, err
	}
	return x.acc.get(key), nil
}

// SetData replaces key's data. The account must be writable in the
// instruction and owned by the program; an empty address becomes an
// account owned by the program (like an Anchor init; rent is not
// modelled, so it holds no lamports unless some are transferred to it).
func (x *Exec) SetData(key solana.PublicKey, data []byte) error {
	if err := x.acc.requireWritable(key, ErrReadonlyDataModified); err != nil {
		return err
	}
	a := x.acc.get(key)
	switch {
	case a.Owner == x.ix.ProgramID:
	case a.IsEmpty():
		a.Owner = x.ix.ProgramID
	default:
		return ErrExternalAccountDataModified
	}
	a.Data = bytes.Clone(data)
	x.acc.put(key, a)
	return nil
}

// TransferLamports moves lamports between two writable accounts of the
// instruction. The source must be owned by the program, or be a System
// account without data that signed the transaction (as a CPI to the System
// program would require).
func (x *Exec) TransferLamports(from, to solana.PublicKey, lamports uint64) error {
	if err := x.acc.requireWritable(from, ErrReadonlyLamportChange); err != nil {
		return err
	}
	if err := x.acc.requireWritable(to, ErrReadonlyLamportChange); err != nil {
		return err
	}
	src := x.acc.get(from)
	ownsSource := src.Owner == x.ix.ProgramID
	signedSystem := src.Owner == solana.SystemProgramID && len(src.Data) == 0 && x.IsSigner(from)
	if !ownsSource && !signedSystem {
		return ErrExternalAccountLamportSpend
	}
	return moveLamports(x, from, to, lamports, ErrInsufficientFunds)
}

// moveLamports moves lamports from one account to another without any
// permission check; short is the error for an insufficient balance.
func moveLamports(x *Exec, from, to solana.PublicKey, lamports uint64, short *ProgramError) error {
	src := x.acc.get(from)
	if src.Lamports < lamports {
		return short
	}
	if from == to {
		return nil
	}
	dst := x.acc.get(to)
	if dst.Lamports > math.MaxUint64-lamports {
		return ErrArithmeticOverflow
	}
	src.Lamports -= lamports
	dst.Lamports += lamports
	x.acc.put(from, src)
	x.acc.put(to, dst)
	return nil
}
