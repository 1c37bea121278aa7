package chain

import (
	"encoding/binary"
	"fmt"
	"math/big"

	"github.com/gagliardetto/solana-go"
)

// Fee constants of the Solana runtime.
const (
	// LamportsPerSignature is the base fee per required signature.
	LamportsPerSignature = 5000
	// defaultUnitsPerInstruction is the compute-unit limit each instruction
	// gets when the transaction does not set one.
	defaultUnitsPerInstruction = 200_000
	// maxComputeUnits is the per-transaction compute-unit ceiling.
	maxComputeUnits = 1_400_000
)

// ComputeBudget instruction tags.
const (
	cbSetComputeUnitLimit = 2
	cbSetComputeUnitPrice = 3
)

// Fee is what a transaction's fee payer is charged.
type Fee struct {
	Payer    solana.PublicKey
	Base     uint64 // 5000 × required signatures
	Priority uint64 // ceil(unit limit × unit price / 1e6)
}

// Total returns Base + Priority.
func (f Fee) Total() uint64 { return f.Base + f.Priority }

// MessageFee computes the fee a message will be charged, as simulation
// reports it; keeper also asks it for a transaction journaled before a
// crash, whose simulation is gone. When the message sets no compute-unit
// limit, the runtime's default (200,000 per instruction other than
// ComputeBudget, at most 1,400,000) is assumed, an upper bound that
// overstates the fee when builtin programs (charged less) are invoked.
// Precompile signature checks (ed25519, secp256k1 instructions), which also
// cost 5000 lamports each, are not counted.
func MessageFee(m solana.Message) (Fee, error) {
	f := Fee{Base: LamportsPerSignature * uint64(m.Header.NumRequiredSignatures)}
	if len(m.AccountKeys) > 0 {
		f.Payer = m.AccountKeys[0]
	}
	var limit, price uint64
	limitSet := false
	others := uint64(0)
	for i, ix := range m.Instructions {
		if int(ix.ProgramIDIndex) >= len(m.AccountKeys) {
			return Fee{}, fmt.Errorf("instruction %d: program index %d out of range", i, ix.ProgramIDIndex)
		}
		if !m.AccountKeys[ix.ProgramIDIndex].Equals(solana.ComputeBudget) {
			others++
			continue
		}
		d := []byte(ix.Data)
		switch {
		case len(d) == 5 && d[0] == cbSetComputeUnitLimit:
			limit, limitSet = uint64(binary.LittleEndian.Uint32(d[1:])), true
		case len(d) == 9 && d[0] == cbSetComputeUnitPrice:
			price = binary.LittleEndian.Uint64(d[1:])
		case len(d) > 0 && (d[0] == cbSetComputeUnitLimit || d[0] == cbSetComputeUnitPrice):
			return Fee{}, fmt.Errorf("instruction %d: malformed compute budget instruction (%d bytes)", i, len(d))
		}
	}
	if !limitSet {
		limit = others * defaultUnitsPerInstruction
	}
	limit = min(limit, maxComputeUnits)
	p, err := priorityFee(limit, price)
	if err != nil {
		return Fee{}, err
	}
	f.Priority = p
	return f, nil
}

// priorityFee returns ceil(limit × price / 1e6) lamports.
func priorityFee(limit, price uint64) (uint64, error) {
	n := new(big.Int).Mul(new(big.Int).SetUint64(limit), new(big.Int).SetUint64(price))
	n.Add(n, big.NewInt(999_999))
	n.Quo(n, big.NewInt(1_000_000))
	if !n.IsUint64() {
		return 0, fmt.Errorf("priority fee of %d units at %d micro-lamports overflows", limit, price)
	}
	return n.Uint64(), nil
}
