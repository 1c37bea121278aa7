package svm

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// ErrPrivilegeEscalation is InstructionError::PrivilegeEscalation: a
// cross-program invocation asked for a signer or writable account the
// caller did not have.
var ErrPrivilegeEscalation = newProgramError("PrivilegeEscalation", "Cross-program invocation with unauthorized signer or writable account")

// maxInvokeDepth is the deepest instruction stack the runtime allows
// (Agave's max_instruction_stack_depth, 5: the top-level instruction and
// four nested invocations).
const maxInvokeDepth = 5

// Invoker runs an instruction on behalf of the runtime: built-in or
// registered program, with no log lines around it.
type Invoker func(x *Exec, ix Instruction) error

// WithInvoker lets x's program make cross-program invocations, run by
// call; it returns x. The runtime sets it on every instruction it runs.
func (x *Exec) WithInvoker(call Invoker) *Exec {
	x.call = call
	return x
}

// Invoke runs ix as a cross-program invocation of the executing program,
// as invoke_signed does: every account of ix (and its program) must be an
// account of the calling instruction; an account may be writable only if
// the caller has it writable, and a signer only if the caller has it as a
// signer or it is the program address that one of signerSeeds derives
// from the calling program's id (create_program_address, bump included).
// ix runs over the same transaction state and compute meter, and its log
// lines are nested one level deeper.
//
// The model leaves out what keeper's programs do not meet: reentrancy
// rules (a program may not be re-entered through another), the per-CPI
// compute charge and the account-data size limits of a nested call.
func (x *Exec) Invoke(ix Instruction, signerSeeds ...[][]byte) error {
	if x.call == nil {
		return fmt.Errorf("svm: the runtime runs no cross-program invocations here")
	}
	if x.depth+1 >= maxInvokeDepth {
		return ErrCallDepth
	}
	signers, err := x.pdaSigners(signerSeeds)
	if err != nil {
		return err
	}
	if _, ok := x.acc.meta(ix.ProgramID); !ok {
		return ErrMissingAccount
	}
	for _, m := range ix.Accounts {
		caller, ok := x.acc.meta(m.PublicKey)
		if !ok {
			return ErrMissingAccount
		}
		if m.IsWritable && !caller.IsWritable || m.IsSigner && !caller.IsSigner && !signers[m.PublicKey] {
			x.Logf("%s's %s privilege escalated", m.PublicKey, map[bool]string{true: "signer", false: "writable"}[m.IsSigner && !caller.IsSigner])
			return ErrPrivilegeEscalation
		}
	}
	inner := &Exec{acc: accountView{st: x.acc.st, metas: ix.Accounts}, ix: ix, index: x.index, pos: x.pos,
		meter: x.meter, logs: x.logs, call: x.call, depth: x.depth + 1}
	inner.Tokens = &Tokens{x: inner}
	inner.AppendLog(fmt.Sprintf("Program %s invoke [%d]", ix.ProgramID, inner.depth+1))
	if err := x.call(inner, ix); err != nil {
		inner.AppendLog(fmt.Sprintf("Program %s failed: %v", ix.ProgramID, err))
		return err
	}
	inner.AppendLog(fmt.Sprintf("Program %s success", ix.ProgramID))
	return nil
}

// ErrCallDepth is InstructionError::CallDepth.
var ErrCallDepth = newProgramError("CallDepth", "Cross-program invocation call depth too deep")

// pdaSigners derives the program addresses the calling program signs for.
func (x *Exec) pdaSigners(seeds [][][]byte) (map[solana.PublicKey]bool, error) {
	out := make(map[solana.PublicKey]bool, len(seeds))
	for _, s := range seeds {
		k, err := solana.CreateProgramAddress(s, x.ix.ProgramID)
		if err != nil {
			return nil, ErrInvalidSeeds
		}
		out[k] = true
	}
	return out, nil
}
