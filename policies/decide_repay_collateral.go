package policies

import (
	"fmt"
	"math"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/signer"
)

// RepaySource is where a repay's principal comes from (params.source).
type RepaySource string

// The repay sources.
const (
	RepayFromWallet     RepaySource = "wallet"
	RepayFromCollateral RepaySource = "collateral"
	RepayAuto           RepaySource = "auto"
)

// sells reports whether the source may sell collateral.
func (s RepaySource) sells() bool { return s == RepayFromCollateral || s == RepayAuto }

// maxSlippageCap is the largest max_slippage a policy may set: past it a
// "bound" no longer protects anything.
const maxSlippageCap = 0.2

// checkSource validates params.source and params.max_slippage.
func (r *RepayParams) checkSource(b *builder) {
	switch r.Source {
	case "", RepayFromWallet:
		if r.MaxSlippage != nil {
			b.fail([]any{"params", "max_slippage"}, "params.max_slippage applies only when source is collateral or auto")
		}
		return
	case RepayFromCollateral, RepayAuto:
	default:
		b.fail([]any{"params", "source"}, "params.source must be wallet, collateral or auto, got %q", r.Source)
		return
	}
	if r.MaxSlippage == nil || !(*r.MaxSlippage > 0 && *r.MaxSlippage <= maxSlippageCap) {
		b.fail([]any{"params", "max_slippage"}, "params.max_slippage is required with source %s and must be in (0, %g]", r.Source, maxSlippageCap)
	}
}

// CollateralRepay is a repay paid by selling collateral: the action path
// quotes the sale through the aggregator (ExactOut for the debt, spending at
// most MaxCollateral; ExactIn of MaxCollateral where the aggregator cannot
// route ExactOut), checks the quote
// against these bounds (signer.CheckSwapQuote) and asks E2 for one build
// (market.CollateralRepayLayout).
type CollateralRepay struct {
	Loan          string `json:"loan"`
	LedgerIndex   int    `json:"ledgerIndex"`
	PrincipalMint string `json:"principalMint"`
	// Debt is what the ledger is repaid, in principal units.
	Debt           uint64 `json:"debt"`
	CollateralMint string `json:"collateralMint"`
	// MaxCollateral is the most that may be sold and leave the loan: the
	// oracle value of Debt × (1 + max_slippage).
	MaxCollateral uint64 `json:"maxCollateral"`
	// MinOut is the least principal the swap must guarantee (the quote's
	// otherAmountThreshold): Debt.
	MinOut uint64 `json:"minOut"`
	// SlippageBps is max_slippage / (1 + max_slippage): the slippage of an
	// ExactIn sale of MaxCollateral, so that a route at the oracle's price
	// guarantees Debt, and the cap of an ExactOut quote's.
	SlippageBps uint16 `json:"slippageBps"`
	// WalletFirst (source auto) pays from the wallet's principal balance
	// first and sells collateral for the rest only.
	WalletFirst bool `json:"walletFirst,omitempty"`
	// OraclePrice is the oracle's price of one whole collateral token in
	// principal tokens, for the plan and the reason.
	OraclePrice float64 `json:"oraclePrice"`
	// HealthAfter is the ledger's health after the repay, had all of
	// MaxCollateral been sold at the oracle's price.
	HealthAfter float64 `json:"healthAfter"`
}

// planFromCollateral plans ledger li's repay of amount paid by selling the
// loan's most valuable token collateral. Without an oracle price of either
// mint the sale is impossible: the target is skipped (no_data), never sold
// blind.
func (rp *RepayParams) planFromCollateral(e *evaluator, le *loanEntry, li int, amount uint64, reason string, in repayInputs) {
	addr, l, lf := le.facts.Address, &le.item.Ledgers[li], &le.mf.Ledgers[li]
	col, ok := rp.collateralToSell(e, le)
	if !ok {
		return
	}
	pt, ct := e.obs.Tokens[l.PrincipalMint], e.obs.Tokens[col.AssetMint]
	s := *rp.MaxSlippage
	maxCol, minOut, err := signer.SwapBoundsFromOracle(amount, pt.PriceUSD, ct.PriceUSD, pt.Decimals, ct.Decimals, s)
	if err != nil {
		e.res.skip(addr, SkipNoData, err.Error())
		return
	}
	if maxCol > col.Amount.Uint64() {
		e.res.skip(addr, SkipError, fmt.Sprintf("selling %s to repay %s needs more than the %s the loan holds",
			FormatAmount(maxCol, col.AssetMint, e.obs.Tokens), FormatAmount(amount, l.PrincipalMint, e.obs.Tokens), FormatAmount(col.Amount.Uint64(), col.AssetMint, e.obs.Tokens)))
		return
	}
	repaidUSD := float64(amount) * lf.DebtUSD / lf.Debt
	lost := float64(maxCol) / math.Pow10(int(ct.Decimals)) * ct.PriceUSD * ratioAt(l.Weights, col.Index) * ratioAt(l.LqtRatios, col.Index)
	after := 1 - (lf.DebtUSD-repaidUSD)/(lf.CapacityUSD-lost)
	cr := &CollateralRepay{Loan: addr, LedgerIndex: l.LedgerIndex, PrincipalMint: l.PrincipalMint, Debt: amount, CollateralMint: col.AssetMint,
		MaxCollateral: maxCol, MinOut: minOut, SlippageBps: uint16(math.Floor(10000 * s / (1 + s))), WalletFirst: rp.Source == RepayAuto,
		OraclePrice: ct.PriceUSD / pt.PriceUSD, HealthAfter: after}
	reason = fmt.Sprintf("%s, selling at most %s from collateral (oracle %g %s per %s, max slippage %g %%), health after %s",
		reason, FormatAmount(maxCol, col.AssetMint, e.obs.Tokens), cr.OraclePrice, symbolOf(e.obs, l.PrincipalMint), symbolOf(e.obs, col.AssetMint), 100*s, formatRatio(after))
	if cr.WalletFirst {
		reason += " (the wallet's balance first)"
	}
	bounds := Bounds{MaxOutflow: map[string]uint64{}}
	if cr.WalletFirst {
		bounds.MaxOutflow[l.PrincipalMint] = amount
	}
	e.gate.plan(Action{Target: addr, Request: Request{CollateralRepay: cr}, Reason: reason, Bounds: bounds}, in)
}

// collateralToSell returns the loan's plain-token collateral of the highest
// oracle value; false, with a skip, when none is priced.
func (rp *RepayParams) collateralToSell(e *evaluator, le *loanEntry) (market.Collateral, bool) {
	best, unpriced, ok := pickCollateral(e.obs, le)
	if !ok {
		why := "the loan holds no token collateral to sell"
		if unpriced != "" {
			why = fmt.Sprintf("no oracle price of collateral %s%s: never sells collateral blind", mintName(e.obs, unpriced), unpricedBecause(e.obs, unpriced))
		}
		e.res.skip(le.facts.Address, SkipNoData, why)
	}
	return best, ok
}

// pickCollateral returns the loan's plain-token collateral of the highest
// oracle value, or the last collateral mint without a price.
func pickCollateral(o *Observation, le *loanEntry) (best market.Collateral, unpriced string, ok bool) {
	bestUSD := 0.0
	for _, c := range le.item.Collateral {
		if c.IsPool() || c.Amount == 0 {
			continue
		}
		t, known := o.Tokens[c.AssetMint]
		if !known || !(t.PriceUSD > 0) {
			unpriced = c.AssetMint
			continue
		}
		if usd := float64(c.Amount) / math.Pow10(int(t.Decimals)) * t.PriceUSD; usd > bestUSD {
			best, bestUSD = c, usd
		}
	}
	return best, unpriced, bestUSD > 0
}

// saleFactor is how much more debt a repay from collateral must repay to
// reach target than one from the wallet: selling r USD of debt's worth
// takes up to r·(1+s)·weight·lqt of capacity with it, so
// r = (debt − (1−target)·capacity) / (1 − (1−target)·(1+s)·weight·lqt).
// It is 1 for the wallet, and when no collateral can be priced (the plan
// then skips).
func (rp *RepayParams) saleFactor(o *Observation, le *loanEntry, li int, target float64) float64 {
	if !rp.Source.sells() {
		return 1
	}
	col, _, ok := pickCollateral(o, le)
	if !ok {
		return 1
	}
	l := &le.item.Ledgers[li]
	k := (1 + *rp.MaxSlippage) * ratioAt(l.Weights, col.Index) * ratioAt(l.LqtRatios, col.Index)
	if d := 1 - (1-target)*k; d > 0 {
		return 1 / d
	}
	return 1
}

// ratioAt returns row[i] as a fraction; 1 when the row is shorter.
func ratioAt(row []market.CBPS, i int) float64 {
	if i < len(row) {
		return row[i].Fraction()
	}
	return 1
}

// symbolOf returns a mint's symbol, or its address.
func symbolOf(o *Observation, mint string) string {
	if t, ok := o.Tokens[mint]; ok && t.Symbol != "" {
		return t.Symbol
	}
	return mint
}
