package svm

import (
	"encoding/json"
	"fmt"
)

// ProgramError is why an instruction failed, as the Solana runtime reports
// it: one of the runtime's InstructionError variants, or a program's custom
// error code. Programs return these from Execute; compare with errors.Is.
type ProgramError struct {
	name   string // the InstructionError variant, "Custom" for custom codes
	code   uint32 // the custom code when name is "Custom"
	detail string // the runtime's display text
}

// The runtime's instruction errors that programs commonly return.
var (
	ErrGenericError                = newProgramError("GenericError", "generic instruction error")
	ErrInvalidArgument             = newProgramError("InvalidArgument", "invalid program argument")
	ErrInvalidInstructionData      = newProgramError("InvalidInstructionData", "invalid instruction data")
	ErrInvalidAccountData          = newProgramError("InvalidAccountData", "invalid account data for instruction")
	ErrAccountDataTooSmall         = newProgramError("AccountDataTooSmall", "account data too small for instruction")
	ErrInsufficientFunds           = newProgramError("InsufficientFunds", "insufficient funds for instruction")
	ErrIncorrectProgramID          = newProgramError("IncorrectProgramId", "incorrect program id for instruction")
	ErrMissingRequiredSignature    = newProgramError("MissingRequiredSignature", "missing required signature for instruction")
	ErrAccountAlreadyInitialized   = newProgramError("AccountAlreadyInitialized", "instruction requires an uninitialized account")
	ErrUninitializedAccount        = newProgramError("UninitializedAccount", "instruction requires an initialized account")
	ErrNotEnoughAccountKeys        = newProgramError("NotEnoughAccountKeys", "insufficient account keys for instruction")
	ErrReadonlyLamportChange       = newProgramError("ReadonlyLamportChange", "instruction changed the balance of a read-only account")
	ErrReadonlyDataModified        = newProgramError("ReadonlyDataModified", "instruction modified data of a read-only account")
	ErrExternalAccountLamportSpend = newProgramError("ExternalAccountLamportSpend", "instruction spent from the balance of an account it does not own")
	ErrExternalAccountDataModified = newProgramError("ExternalAccountDataModified", "instruction modified data of an account it does not own")
	ErrMissingAccount              = newProgramError("MissingAccount", "An account required by the instruction is missing")
	ErrInvalidSeeds                = newProgramError("InvalidSeeds", "Provided seeds do not result in a valid address")
	ErrUnsupportedProgramID        = newProgramError("UnsupportedProgramId", "Unsupported program id")
	ErrComputationalBudgetExceeded = newProgramError("ComputationalBudgetExceeded", "Computational budget exceeded")
	ErrInvalidAccountOwner         = newProgramError("InvalidAccountOwner", "Invalid account owner")
	ErrIllegalOwner                = newProgramError("IllegalOwner", "Provided owner is not allowed")
	ErrArithmeticOverflow          = newProgramError("ArithmeticOverflow", "Program arithmetic overflowed")
	ErrProgramFailedToComplete     = newProgramError("ProgramFailedToComplete", "Program failed to complete")
)

// newProgramError returns a runtime instruction error.
func newProgramError(name, detail string) *ProgramError {
	return &ProgramError{name: name, detail: detail}
}

// CustomError returns a program's custom error code, shown on the wire as
// {"Custom": code}.
func CustomError(code uint32) *ProgramError {
	return &ProgramError{name: "Custom", code: code, detail: fmt.Sprintf("custom program error: 0x%x", code)}
}

// Name returns the InstructionError variant, e.g. "InvalidAccountData" or
// "Custom".
func (e *ProgramError) Name() string { return e.name }

// Code returns the custom error code and whether e is a custom error.
func (e *ProgramError) Code() (uint32, bool) { return e.code, e.name == "Custom" }

// Error returns the runtime's text for the error.
func (e *ProgramError) Error() string { return e.detail }

// Is reports whether target is a ProgramError of the same variant and code.
func (e *ProgramError) Is(target error) bool {
	t, ok := target.(*ProgramError)
	return ok && t.name == e.name && t.code == e.code
}

// wire returns the error's JSON value: the variant name, or {"Custom": n}.
func (e *ProgramError) wire() any {
	if e.name == "Custom" {
		return map[string]uint32{"Custom": e.code}
	}
	return e.name
}

// MarshalJSON encodes the error as the RPC does.
func (e *ProgramError) MarshalJSON() ([]byte, error) { return json.Marshal(e.wire()) }

// SPL Token program error codes (custom errors of the Token program).
const (
	TokenErrInsufficientFunds        = 1
	tokenErrMintMismatch             = 3
	TokenErrOwnerMismatch            = 4
	tokenErrFixedSupply              = 5
	tokenErrUninitializedState       = 9
	TokenErrNonNativeHasBalance      = 11
	tokenErrInvalidInstruction       = 12
	tokenErrOverflow                 = 14
	tokenErrAuthorityTypeUnsupported = 15
	tokenErrMintCannotFreeze         = 16
	tokenErrAccountFrozen            = 17
	TokenErrMintDecimalsMismatch     = 18
)

// System program error codes.
const (
	SystemErrAccountAlreadyInUse      = 0
	SystemErrResultWithNegativeLamps  = 1
	systemErrInvalidAccountDataLength = 3
	systemErrNonceNotExpired          = 6
)
