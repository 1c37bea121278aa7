package svm

import (
	"encoding/json"
	"errors"
	"fmt"
)

// TxError is why a transaction failed, as the Solana runtime reports it in
// statuses, simulations and preflight errors. A TxError returned before
// execution (e.g. BlockhashNotFound) means the transaction did not land; an
// InstructionError is recorded on a landed transaction that paid its fee.
type TxError struct {
	kind    string        // the TransactionError variant
	index   int           // instruction index of InstructionError and DuplicateInstruction
	program *ProgramError // the cause of an InstructionError
}

// Transaction errors the chain produces. Compare with errors.Is; an
// InstructionError matches ErrInstruction and unwraps to its ProgramError.
var (
	ErrBlockhashNotFound              = &TxError{kind: "BlockhashNotFound"}
	ErrAlreadyProcessed               = &TxError{kind: "AlreadyProcessed"}
	ErrInsufficientFundsForFee        = &TxError{kind: "InsufficientFundsForFee"}
	ErrInvalidAccountForFee           = &TxError{kind: "InvalidAccountForFee"}
	ErrAccountNotFound                = &TxError{kind: "AccountNotFound"}
	ErrSignatureFailure               = &TxError{kind: "SignatureFailure"}
	ErrAccountLoadedTwice             = &TxError{kind: "AccountLoadedTwice"}
	ErrInvalidAccountIndex            = &TxError{kind: "InvalidAccountIndex"}
	ErrUnsupportedVersion             = &TxError{kind: "UnsupportedVersion"}
	ErrAddressLookupTableNotFound     = &TxError{kind: "AddressLookupTableNotFound"}
	ErrInvalidAddressLookupTableOwner = &TxError{kind: "InvalidAddressLookupTableOwner"}
	ErrInvalidAddressLookupTableData  = &TxError{kind: "InvalidAddressLookupTableData"}
	ErrInvalidAddressLookupTableIndex = &TxError{kind: "InvalidAddressLookupTableIndex"}
	ErrInstruction                    = &TxError{kind: "InstructionError", index: -1}
	ErrDuplicateInstruction           = &TxError{kind: "DuplicateInstruction", index: -1}
	ErrInsufficientFundsForRent       = &TxError{kind: "InsufficientFundsForRent", index: -1}
)

// txErrorText is the runtime's display text of each unit variant.
var txErrorText = map[string]string{
	"BlockhashNotFound":              "Blockhash not found",
	"AlreadyProcessed":               "This transaction has already been processed",
	"InsufficientFundsForFee":        "Insufficient funds for fee",
	"InvalidAccountForFee":           "This account may not be used to pay transaction fees",
	"AccountNotFound":                "Attempt to debit an account but found no record of a prior credit.",
	"SignatureFailure":               "Transaction did not pass signature verification",
	"AccountLoadedTwice":             "Account loaded twice",
	"InvalidAccountIndex":            "Transaction contains an invalid account reference",
	"UnsupportedVersion":             "Transaction version is unsupported",
	"AddressLookupTableNotFound":     "Transaction loads an address table account that doesn't exist",
	"InvalidAddressLookupTableOwner": "Transaction loads an address table account with an invalid owner",
	"InvalidAddressLookupTableData":  "Transaction loads an address table account with invalid data",
	"InvalidAddressLookupTableIndex": "Transaction address table lookup uses an invalid index",
}

// InstructionError returns the InstructionError of instruction index.
func InstructionError(index int, cause *ProgramError) *TxError {
	return &TxError{kind: "InstructionError", index: index, program: cause}
}

// InsufficientFundsForRent returns the error of a transaction that would
// leave the account at index (of its account keys) rent-paying against the
// rent rule.
func InsufficientFundsForRent(index int) *TxError {
	return &TxError{kind: "InsufficientFundsForRent", index: index}
}

// duplicateInstruction returns the DuplicateInstruction error of index.
func duplicateInstruction(index int) *TxError {
	return &TxError{kind: "DuplicateInstruction", index: index}
}

// Kind returns the TransactionError variant, e.g. "BlockhashNotFound".
func (e *TxError) Kind() string { return e.kind }

// InstructionIndex returns the failing instruction's index, for
// InstructionError and DuplicateInstruction.
func (e *TxError) InstructionIndex() (int, bool) {
	return e.index, e.kind == "InstructionError" || e.kind == "DuplicateInstruction"
}

// Error returns the runtime's text for the error.
func (e *TxError) Error() string {
	switch e.kind {
	case "InstructionError":
		return fmt.Sprintf("Error processing Instruction %d: %v", e.index, e.program)
	case "DuplicateInstruction":
		return fmt.Sprintf("Transaction contains a duplicate instruction (%d) that is not allowed", e.index)
	case "InsufficientFundsForRent":
		return fmt.Sprintf("Transaction results in an account (%d) with insufficient funds for rent", e.index)
	}
	if text, ok := txErrorText[e.kind]; ok {
		return text
	}
	return e.kind
}

// Unwrap returns the ProgramError of an InstructionError.
func (e *TxError) Unwrap() error {
	if e.program == nil {
		return nil
	}
	return e.program
}

// Is reports whether target is a TxError of the same variant; a target with
// an instruction index (not one of the package's sentinels) must match it.
func (e *TxError) Is(target error) bool {
	t, ok := target.(*TxError)
	if !ok || t.kind != e.kind {
		return false
	}
	if t.index >= 0 && t.index != e.index {
		return false
	}
	return t.program == nil || errors.Is(e.program, t.program)
}

// Wire returns the error's JSON value as the RPC encodes it.
func (e *TxError) Wire() any {
	switch e.kind {
	case "InstructionError":
		return map[string][2]any{"InstructionError": {e.index, e.program.wire()}}
	case "DuplicateInstruction":
		return map[string]int{"DuplicateInstruction": e.index}
	case "InsufficientFundsForRent":
		return map[string]map[string]int{"InsufficientFundsForRent": {"account_index": e.index}}
	}
	return e.kind
}

// MarshalJSON encodes the error as the RPC does.
func (e *TxError) MarshalJSON() ([]byte, error) { return json.Marshal(e.Wire()) }

// WireErr returns the JSON value of a possibly nil transaction error.
func WireErr(e *TxError) any {
	if e == nil {
		return nil
	}
	return e.Wire()
}

// ErrInvalidTransaction is wrapped by every error about a transaction that
// cannot be decoded or is malformed; such a transaction never reaches the
// runtime, and the RPC answers it with JSON-RPC error -32602.
var ErrInvalidTransaction = errors.New("invalid transaction")
