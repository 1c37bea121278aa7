package svm

import (
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
)

// Program is on-chain code registered with the chain's Setup.RegisterProgram, such as a
// simulated lending market. Execute runs one instruction addressed to the
// program. It reads and writes chain state only through x, which enforces
// what the runtime enforces (accounts must be passed in the instruction,
// writes need writable accounts, debits need ownership or a signature). An
// error fails the instruction and rolls back the whole transaction (its fee
// is still charged): return a *ProgramError (e.g. CustomError(6001)) to
// choose how the failure appears on the wire; any other error is reported as
// GenericError with its text in the logs. A panic is recovered and reported
// as ProgramFailedToComplete.
//
// Execute is called with the chain's lock held: it must not call methods of
// the Chain, only of x.
type Program interface {
	Execute(x *Exec, ix Instruction) error
}

// ProgramFunc adapts a function to the Program interface.
type ProgramFunc func(x *Exec, ix Instruction) error

// Execute calls f(x, ix).
func (f ProgramFunc) Execute(x *Exec, ix Instruction) error { return f(x, ix) }

// Instruction is one instruction as its program sees it.
type Instruction struct {
	// ProgramID is the program the instruction is addressed to.
	ProgramID solana.PublicKey
	// Accounts are the instruction's accounts in order, with the
	// transaction's signer and writable flags.
	Accounts []solana.AccountMeta
	// Data is the instruction data.
	Data []byte
}

// Exec is the runtime context of one executing instruction: what an
// on-chain program can see and do. It is valid only during Execute.
type Exec struct {
	// Tokens moves the instruction's SPL tokens.
	Tokens *Tokens

	acc   accountView
	ix    Instruction
	index int      // instruction index in the transaction
	pos   BlockPos // the block the transaction lands in
	meter *Meter
	logs  *[]string
	txn   *Txn    // the transaction, for Sibling (nil outside one)
	call  Invoker // runs cross-program invocations (see Invoke)
	depth int     // 0 for a top-level instruction
}

// NewExec returns the execution of instruction ix, the index-th of its
// transaction, over st in the block at pos, charging compute units to meter
// and appending log lines to logs.
func NewExec(st *Overlay, ix Instruction, index int, pos BlockPos, meter *Meter, logs *[]string) *Exec {
	x := &Exec{acc: accountView{st: st, metas: ix.Accounts}, ix: ix, index: index, pos: pos, meter: meter, logs: logs}
	x.Tokens = &Tokens{x: x}
	return x
}

// BlockPos is a block: its slot, height, time and blockhash.
type BlockPos struct {
	Slot   uint64
	Height uint64
	Time   time.Time
	Hash   solana.Hash
}

// Meter counts compute units against a transaction's limit.
type Meter struct {
	Limit, Used uint64
}

// Consume charges n units, failing once the limit is passed.
func (m *Meter) Consume(n uint64) error {
	if n > m.Limit-m.Used {
		m.Used = m.Limit
		return ErrComputationalBudgetExceeded
	}
	m.Used += n
	return nil
}

// ProgramID returns the id of the executing program.
func (x *Exec) ProgramID() solana.PublicKey { return x.ix.ProgramID }

// Block returns the block the transaction lands in: its slot, height,
// blockhash and time (the start of the slot, as the Clock sysvar would show
// it, with sub-second precision).
func (x *Exec) Block() BlockPos { return x.pos }

// InstructionIndex returns the index of the instruction in its transaction.
func (x *Exec) InstructionIndex() int { return x.index }

// Log appends "Program log: msg" to the transaction's logs.
func (x *Exec) Log(msg string) { x.AppendLog("Program log: " + msg) }

// Logf is Log with fmt.Sprintf formatting.
func (x *Exec) Logf(format string, args ...any) { x.Log(fmt.Sprintf(format, args...)) }

// AppendLog appends a raw line to the transaction's logs.
func (x *Exec) AppendLog(line string) { *x.logs = append(*x.logs, line) }

// ConsumeUnits charges n compute units; it fails with
// ErrComputationalBudgetExceeded once the transaction's limit is passed.
func (x *Exec) ConsumeUnits(n uint64) error { return x.meter.Consume(n) }

// IsSigner reports whether key is an account of the instruction that signed
// the transaction.
func (x *Exec) IsSigner(key solana.PublicKey) bool {
	m, ok := x.acc.meta(key)
	return ok && m.IsSigner
}

// IsWritable reports whether key is a writable account of the instruction.
func (x *Exec) IsWritable(key solana.PublicKey) bool {
	m, ok := x.acc.meta(key)
	return ok && m.IsWritable
}
