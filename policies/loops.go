package policies

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

// LoopObservation is one loop record (E12) with the pair it was asked for:
// the runtime asks E12 for "{PRINCIPAL_MINT}-{COLLATERAL_MINT}", the
// identifier form the spec names, so the pair does not depend on the
// record's own (assumed) mint fields.
type LoopObservation struct {
	PrincipalMint  string
	CollateralMint string
	Loop           market.Loop
}

// LoopFacts describe the loop of a principal and a collateral mint (E12):
// borrowers deposit the collateral, borrow the principal and buy more
// collateral with it. WAvgAPY is the loop's figure to show; MaxAPY can be
// empty or unrepresentative when borrow liquidity is exhausted, so it comes
// with whether it is representative.
type LoopFacts struct {
	Identifier     string   `expr:"identifier" json:"identifier"`
	PrincipalMint  string   `expr:"principal_mint" json:"principal_mint"`
	CollateralMint string   `expr:"collateral_mint" json:"collateral_mint"`
	Tags           []string `expr:"tags" json:"tags,omitempty"`
	// CollateralDeposited is the loop's total collateral deposited, in whole
	// tokens (E12 gives it decimal-scaled).
	CollateralDeposited float64 `expr:"collateral_deposited" json:"collateral_deposited"`
	// WAvgAPY is the size-weighted APY across the loop's active positions.
	WAvgAPY float64 `expr:"w_avg_apy" json:"w_avg_apy"`
	// MaxAPY is the loop's maximum APY; 0 when HasMaxAPY is false.
	MaxAPY    float64 `expr:"max_apy" json:"max_apy"`
	HasMaxAPY bool    `expr:"has_max_apy" json:"has_max_apy"`
	// BorrowLiquidity is the principal the observed vaults of the loop's
	// principal mint hold idle (their strategies' tokenBalance), in smallest
	// units: what loopers can still borrow from them.
	BorrowLiquidity uint64 `expr:"borrow_liquidity" json:"borrow_liquidity"`
	// MaxAPYRepresentative is false when MaxAPY is missing or borrow
	// liquidity is exhausted (BorrowLiquidity is 0), as the spec warns.
	MaxAPYRepresentative bool `expr:"max_apy_representative" json:"max_apy_representative"`
}

// deriveLoops derives the facts of every observed loop, ordered by pair.
func deriveLoops(o *Observation) []LoopFacts {
	if len(o.Loops) == 0 {
		return nil
	}
	idle := map[string]uint64{}
	for _, v := range o.Vaults {
		idle[v.PrincipalMint] += v.VaultStrategy.Strategy.TokenBalance.Uint64()
	}
	out := make([]LoopFacts, 0, len(o.Loops))
	for _, lo := range o.Loops {
		l := lo.Loop
		f := LoopFacts{Identifier: l.Identifier, PrincipalMint: lo.PrincipalMint, CollateralMint: lo.CollateralMint,
			Tags: l.Tags, CollateralDeposited: l.CollateralDeposited.Float64(), WAvgAPY: l.WAvgApy.Float64(),
			BorrowLiquidity: idle[lo.PrincipalMint]}
		if l.MaxApy != nil {
			f.MaxAPY, f.HasMaxAPY = l.MaxApy.Float64(), true
		}
		f.MaxAPYRepresentative = f.HasMaxAPY && f.BorrowLiquidity > 0
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b LoopFacts) int {
		return cmp.Or(strings.Compare(a.PrincipalMint, b.PrincipalMint), strings.Compare(a.CollateralMint, b.CollateralMint))
	})
	return out
}

// loopsOf returns the loops whose principal is mint.
func loopsOf(loops []LoopFacts, mint string) []LoopFacts {
	var out []LoopFacts
	for _, l := range loops {
		if l.PrincipalMint == mint {
			out = append(out, l)
		}
	}
	return out
}

// findLoop returns the loop of collateral among the loops of one principal
// mint.
func findLoop(loops []LoopFacts, collateral string) (LoopFacts, bool) {
	for _, l := range loops {
		if l.CollateralMint == collateral {
			return l, true
		}
	}
	return LoopFacts{}, false
}

// loopNames are the expression names that read loops.
var loopNames = []string{"loops", "loop", "has_loop"}

// VaultView is one vault as `keeper report vaults` shows it: the facts
// policies decide from, the loops borrowing its principal, and the facts
// that could not be known, each with why.
type VaultView struct {
	VaultFacts
	Loops   []LoopFacts       `json:"loops"`
	Unknown map[string]string `json:"unknown,omitempty"`
}

// VaultViews returns every observed vault's view at now, ordered by
// address.
func (o *Observation) VaultViews(now time.Time) []VaultView {
	d := o.facts(now)
	out := make([]VaultView, 0, len(d.vaults))
	for _, v := range d.vaults {
		loops := v.loops
		if loops == nil {
			loops = []LoopFacts{}
		}
		out = append(out, VaultView{VaultFacts: v.facts, Loops: loops, Unknown: v.unknown})
	}
	return out
}
