package svm

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/gagliardetto/solana-go"
)

// Fee and compute-unit constants of the runtime.
const (
	// LamportsPerSignature is the base fee per required signature.
	LamportsPerSignature = 5000
	// MaxComputeUnitLimit is the largest compute-unit limit of a transaction.
	MaxComputeUnitLimit = 1_400_000
	// defaultUnitsPerInstruction is the default limit of a non-builtin instruction.
	defaultUnitsPerInstruction = 200_000
	// defaultUnitsPerBuiltin is the default limit of a builtin instruction.
	defaultUnitsPerBuiltin = 3_000
)

// ComputeBudget is what a transaction's ComputeBudget instructions ask for.
type ComputeBudget struct {
	Limit uint64 // the effective compute-unit limit
	Price uint64 // micro-lamports per compute unit
}

// BudgetOf parses the transaction's ComputeBudget instructions. Errors are
// the runtime's: the transaction does not land.
func BudgetOf(t *Txn) (ComputeBudget, *TxError) {
	var b ComputeBudget
	seen := map[byte]bool{}
	hasLimit := false
	defaultLimit := uint64(0)
	for i, ix := range t.Msg.Instructions {
		prog := t.Msg.AccountKeys[ix.ProgramIDIndex]
		if isNativeBuiltin(prog) {
			defaultLimit += defaultUnitsPerBuiltin
		} else {
			defaultLimit += defaultUnitsPerInstruction
		}
		if prog != solana.ComputeBudget {
			continue
		}
		d := []byte(ix.Data)
		if len(d) == 0 || !validBudgetData(d) {
			return b, InstructionError(i, ErrInvalidInstructionData)
		}
		if seen[d[0]] {
			return b, duplicateInstruction(i)
		}
		seen[d[0]] = true
		switch d[0] {
		case 2:
			b.Limit, hasLimit = uint64(binary.LittleEndian.Uint32(d[1:])), true
		case 3:
			b.Price = binary.LittleEndian.Uint64(d[1:])
		}
	}
	if !hasLimit {
		b.Limit = defaultLimit
	}
	b.Limit = min(b.Limit, MaxComputeUnitLimit)
	return b, nil
}

// validBudgetData reports whether d is a well-formed ComputeBudget
// instruction the runtime accepts.
func validBudgetData(d []byte) bool {
	switch d[0] {
	case 1: // RequestHeapFrame(u32): a multiple of 1 KiB in [32 KiB, 256 KiB]
		if len(d) != 5 {
			return false
		}
		n := binary.LittleEndian.Uint32(d[1:])
		return n%1024 == 0 && n >= 32*1024 && n <= 256*1024
	case 2: // SetComputeUnitLimit(u32)
		return len(d) == 5
	case 3: // SetComputeUnitPrice(u64)
		return len(d) == 9
	case 4: // SetLoadedAccountsDataSizeLimit(u32), non-zero
		return len(d) == 5 && binary.LittleEndian.Uint32(d[1:]) != 0
	}
	return false
}

// Fee returns the transaction's fee in lamports: the base fee per
// signature plus ceil(price × limit / 1e6). An overflow saturates.
func (b ComputeBudget) Fee(signatures int) uint64 {
	base := uint64(signatures) * LamportsPerSignature
	hi, lo := bits.Mul64(b.Price, b.Limit)
	if hi >= 1_000_000 {
		return math.MaxUint64
	}
	q, r := bits.Div64(hi, lo, 1_000_000)
	if r > 0 {
		if q == math.MaxUint64 {
			return math.MaxUint64
		}
		q++
	}
	sum, carry := bits.Add64(base, q, 0)
	if carry != 0 {
		return math.MaxUint64
	}
	return sum
}
