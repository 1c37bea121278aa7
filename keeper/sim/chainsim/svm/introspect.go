package svm

import "github.com/gagliardetto/solana-go"

// SysvarInstructions is the Instructions sysvar, through which a program reads the other
// instructions of its transaction.
var SysvarInstructions = solana.MustPublicKeyFromBase58("Sysvar1nstructions1111111111111111111111111")

// SetTransaction gives x the transaction it runs in, for Sibling.
func (x *Exec) SetTransaction(t *Txn) { x.txn = t }

// Sibling returns instruction i of the executing transaction, as a program reads it from the
// Instructions sysvar: only when the instruction passes that sysvar among its accounts, as the real
// runtime requires.
func (x *Exec) Sibling(i int) (Instruction, bool) {
	if x.txn == nil || i < 0 || i >= len(x.txn.Msg.Instructions) {
		return Instruction{}, false
	}
	if _, ok := x.acc.meta(SysvarInstructions); !ok {
		return Instruction{}, false
	}
	return x.txn.Instruction(i), true
}
