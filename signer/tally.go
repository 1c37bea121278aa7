package signer

import (
	"math"
	"math/bits"

	"github.com/gagliardetto/solana-go"
)

// Fee facts used by the static lamport estimate.
const (
	lamportsPerSignature    = 5000
	defaultUnitsPerIx       = 200_000
	maxComputeUnits         = 1_400_000
	microLamportsPerLamport = 1_000_000
)

// tally accumulates what the instructions take from our wallet. Sums saturate
// at the largest uint64 instead of wrapping.
type tally struct {
	created     uint64                      // lamports funding accounts we create, by no static key
	funded      map[solana.PublicKey]uint64 // lamports funding accounts we create, by account
	closedToUs  map[solana.PublicKey]bool   // accounts closed with their lamports sent to our wallet
	tips        uint64                      // lamports sent to tip accounts
	tokens      map[solana.PublicKey]uint64
	unknownMint uint64 // token amounts whose mint the instruction does not name

	budgetSeen [5]bool // ComputeBudget instruction tags already seen
	unitLimit  uint64  // from SetComputeUnitLimit, when budgetSeen[2]
	unitPrice  uint64  // from SetComputeUnitPrice, micro-lamports per unit
}

func satAdd(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	if carry != 0 {
		return math.MaxUint64
	}
	return s
}

// fund records lamports our wallet puts into an account it creates.
func (t *tally) fund(acct solana.PublicKey, lamports uint64) {
	if t.funded == nil {
		t.funded = make(map[solana.PublicKey]uint64)
	}
	t.funded[acct] = satAdd(t.funded[acct], lamports)
}

// closeToUs records an account closed with its lamports sent to our wallet.
func (t *tally) closeToUs(acct solana.PublicKey) {
	if t.closedToUs == nil {
		t.closedToUs = make(map[solana.PublicKey]bool)
	}
	t.closedToUs[acct] = true
}

// rent returns the lamports that stay in accounts we funded: a temporary
// account closed back to our wallet in the same answer returns them all
// (what left it as tokens is counted as tokens).
func (t *tally) rent() uint64 {
	total := t.created
	for acct, lamports := range t.funded {
		if !t.closedToUs[acct] {
			total = satAdd(total, lamports)
		}
	}
	return total
}

func (t *tally) addToken(mint solana.PublicKey, amount uint64) {
	if t.tokens == nil {
		t.tokens = make(map[solana.PublicKey]uint64)
	}
	t.tokens[mint] = satAdd(t.tokens[mint], amount)
}

// fees estimates what the fee payer pays: the base fee per signature plus the
// priority fee, ceil(limit × price / 1e6). Without SetComputeUnitLimit the
// limit is taken as 200,000 units per instruction other than ComputeBudget
// ones, capped at 1,400,000: an upper bound of the chain's default.
func (t *tally) fees(m *message) uint64 {
	base := uint64(lamportsPerSignature) * uint64(m.header.numRequiredSignatures)
	limit := t.unitLimit
	if !t.budgetSeen[budgetSetUnitLimit] {
		n := uint64(0)
		for _, ix := range m.ixs {
			if m.keys[ix.program] != solana.ComputeBudget {
				n++
			}
		}
		limit = n * defaultUnitsPerIx
	}
	limit = min(limit, maxComputeUnits)
	hi, lo := bits.Mul64(limit, t.unitPrice)
	lo, carry := bits.Add64(lo, microLamportsPerLamport-1, 0)
	hi += carry
	if hi >= microLamportsPerLamport {
		return math.MaxUint64
	}
	priority, _ := bits.Div64(hi, lo, microLamportsPerLamport)
	return satAdd(base, priority)
}
