package svm

import (
	"bytes"

	"github.com/gagliardetto/solana-go"
)

// Account is the state of one on-chain account.
type Account struct {
	// Lamports is the account's SOL balance.
	Lamports uint64
	// Owner is the program that may change the account's data and debit it.
	Owner solana.PublicKey
	// Data is the account's data. Values returned by the chain are copies.
	Data []byte
	// Executable marks a program account.
	Executable bool
}

// Clone returns a deep copy of a.
func (a Account) Clone() Account {
	a.Data = bytes.Clone(a.Data)
	return a
}

// IsEmpty reports whether a is what an address with no account looks like
// to a program: no lamports, no data, owned by the System program.
func (a Account) IsEmpty() bool {
	return a.Lamports == 0 && len(a.Data) == 0 && a.Owner == solana.SystemProgramID && !a.Executable
}

// EmptyAccount is how an address without an account appears to programs.
func EmptyAccount() Account {
	return Account{Owner: solana.SystemProgramID}
}
