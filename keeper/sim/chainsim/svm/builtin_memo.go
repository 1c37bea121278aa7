package svm

import (
	"fmt"
	"unicode/utf8"
)

// runMemo executes the Memo program: the data must be UTF-8 and every
// account passed must have signed.
func runMemo(x *Exec, ix Instruction) error {
	if err := x.ConsumeUnits(1_000 + 10*uint64(len(ix.Data))); err != nil {
		return err
	}
	for _, m := range ix.Accounts {
		if !m.IsSigner {
			x.Logf("Missing required signature for %s", m.PublicKey)
			return ErrMissingRequiredSignature
		}
		x.Logf("Signed by %s", m.PublicKey)
	}
	if !utf8.Valid(ix.Data) {
		x.Log("Invalid UTF-8")
		return ErrInvalidInstructionData
	}
	x.Log(fmt.Sprintf("Memo (len %d): %q", len(ix.Data), string(ix.Data)))
	return nil
}
