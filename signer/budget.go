package signer

import (
	"encoding/binary"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// MaxComputeUnitLimit is the most compute units a transaction may ask for.
const MaxComputeUnitLimit = maxComputeUnits

// Budget is what a transaction's ComputeBudget instructions ask for.
type Budget struct {
	// Limit is SetComputeUnitLimit's value, when HasLimit.
	Limit    uint32
	HasLimit bool
	// Price is SetComputeUnitPrice's value in micro-lamports per unit,
	// when HasPrice.
	Price    uint64
	HasPrice bool
	// Instructions are the indexes of the ComputeBudget instructions, in
	// order.
	Instructions []int
}

// Budget reads t's ComputeBudget instructions. A garbled one is left for
// the guard to refuse and does not count.
func (t *Tx) Budget() Budget {
	var b Budget
	for i, ix := range t.msg.ixs {
		if t.msg.keys[ix.program] != solana.ComputeBudget || len(ix.data) == 0 {
			continue
		}
		b.Instructions = append(b.Instructions, i)
		switch {
		case ix.data[0] == budgetSetUnitLimit && len(ix.data) == 5:
			b.Limit, b.HasLimit = binary.LittleEndian.Uint32(ix.data[1:]), true
		case ix.data[0] == budgetSetUnitPrice && len(ix.data) == 9:
			b.Price, b.HasPrice = binary.LittleEndian.Uint64(ix.data[1:]), true
		}
	}
	return b
}

// WritableStaticKeys returns the static keys the message write-locks, in
// order. Accounts loaded through address tables are not among them.
func (t *Tx) WritableStaticKeys() []solana.PublicKey {
	h := t.msg.header
	var out []solana.PublicKey
	for i, k := range t.msg.keys {
		signed := i < int(h.numRequiredSignatures)
		if signed && i < int(h.numRequiredSignatures-h.numReadonlySignedAccounts) ||
			!signed && i < len(t.msg.keys)-int(h.numReadonlyUnsignedAccounts) {
			out = append(out, k)
		}
	}
	return out
}

// OnlySigner reports whether pk is the one signer t requires: no one else
// has signed or must sign the message, so rewriting it invalidates nobody's
// signature.
func (t *Tx) OnlySigner(pk solana.PublicKey) bool {
	return t.msg.header.numRequiredSignatures == 1 && t.msg.keys[0] == pk
}

// SetUnitLimitData is the data of a SetComputeUnitLimit instruction.
func SetUnitLimitData(units uint32) []byte {
	return binary.LittleEndian.AppendUint32([]byte{budgetSetUnitLimit}, units)
}

// SetUnitPriceData is the data of a SetComputeUnitPrice instruction.
func SetUnitPriceData(microLamports uint64) []byte {
	return binary.LittleEndian.AppendUint64([]byte{budgetSetUnitPrice}, microLamports)
}

// CheckBudget refuses t unless its ComputeBudget instructions are exactly
// want's limit and price, one of each and nothing else; with first, they
// must also open the transaction (where the market is assumed to place a
// caller's setup instructions). It checks an answer built with keeper's
// own compute budget as setup instructions ([RuleComputeBudget]).
func CheckBudget(t *Tx, want Budget, first bool) error {
	got := t.Budget()
	switch {
	case !got.HasLimit || !got.HasPrice || len(got.Instructions) != 2:
		return refuse(RuleComputeBudget, "the answer does not carry keeper's compute budget (limit %d, price %d): it has %d ComputeBudget instructions",
			want.Limit, want.Price, len(got.Instructions))
	case got.Limit != want.Limit || got.Price != want.Price:
		return refuse(RuleComputeBudget, "the answer's compute budget (limit %d, price %d) is not keeper's (limit %d, price %d)",
			got.Limit, got.Price, want.Limit, want.Price)
	case first && (got.Instructions[0] != 0 || got.Instructions[1] != 1):
		return refuse(RuleComputeBudget, "keeper's compute budget instructions are at %v, not first", got.Instructions)
	}
	return nil
}

// String writes b for logs.
func (b Budget) String() string {
	return fmt.Sprintf("limit %d, price %d µlamports/unit", b.Limit, b.Price)
}
