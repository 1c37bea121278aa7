package keeper

import (
	"context"
	"fmt"
	"math"

	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/jupiter"
	"github.com/keeper-project/keeper/policies"
)

// SaleQuote is what the aggregator quoted, when plan ran, for a planned
// repay from collateral: a quote that may move before the action builds
// (which asks again and bounds the sale by the oracle, whatever this said).
type SaleQuote struct {
	// Mode is ExactOut, or ExactIn where the aggregator cannot route
	// ExactOut (Fallback says why).
	Mode     string `json:"mode,omitempty"`
	Fallback string `json:"fallback,omitempty"`
	// Sell is the collateral the quote expects to sell, MaxSell the most
	// the swap may spend; Out the principal it expects to pay.
	Sell    uint64 `json:"sell,omitempty"`
	MaxSell uint64 `json:"max_sell,omitempty"`
	Out     uint64 `json:"out,omitempty"`
	// Price is the quote's price of a whole collateral token in principal
	// tokens, OraclePrice the oracle's that the bounds come from.
	Price       float64 `json:"price,omitempty"`
	OraclePrice float64 `json:"oracle_price"`
	// ImpactPct is the quote's price impact, in percent.
	ImpactPct float64 `json:"impact_pct,omitempty"`
	// Err says why no quote could be read.
	Err string `json:"error,omitempty"`
	// Summary is the line plan prints.
	Summary string `json:"summary"`
}

// quoteSales reads, when the swap section is configured, the aggregator's
// quote of every repay from collateral pp plans, for plan to show against
// the oracle's price.
func (k *Keeper) quoteSales(ctx context.Context, pp *PolicyPlan) {
	sw, err := swapClient(k.cfg, k.deps.swapper)
	if sw == nil && err == nil {
		return // no swap section: nothing to quote
	}
	cc := action.CollateralConfig{Swapper: sw, ExactOutSlippageBps: k.cfg.Swap.ExactOutSlippageBps}
	for _, a := range pp.Actions {
		cr := a.Request.CollateralRepay
		if cr == nil {
			continue
		}
		if pp.SaleQuotes == nil {
			pp.SaleQuotes = map[string]SaleQuote{}
		}
		sq := SaleQuote{OraclePrice: cr.OraclePrice}
		if err != nil {
			sq.Err = err.Error()
		} else {
			q, unroutable, qerr := action.QuoteSale(ctx, cc, cr, cr.Debt, cr.MaxCollateral)
			sq.fill(q, unroutable, qerr, cr, pp.obs)
		}
		sq.Summary = sq.summary(cr, pp.obs)
		pp.SaleQuotes[a.ID] = sq
	}
}

// fill sets sq from the aggregator's answer.
func (sq *SaleQuote) fill(q *jupiter.Quote, unroutable, err error, cr *policies.CollateralRepay, obs *policies.Observation) {
	if err != nil {
		sq.Err = err.Error()
		return
	}
	sq.Mode, sq.Sell, sq.MaxSell, sq.Out = string(q.SwapMode), q.InAmount.Uint64(), q.InAmount.Uint64(), q.OutAmount.Uint64()
	if q.SwapMode == jupiter.ExactOut {
		sq.MaxSell = q.OtherAmountThreshold.Uint64()
	}
	if unroutable != nil {
		sq.Fallback = unroutable.Error()
	}
	sq.ImpactPct = 100 * float64(q.PriceImpactPct)
	col, prin := obs.Tokens[cr.CollateralMint], obs.Tokens[cr.PrincipalMint]
	if sq.Sell > 0 {
		sq.Price = float64(sq.Out) / math.Pow10(int(prin.Decimals)) / (float64(sq.Sell) / math.Pow10(int(col.Decimals)))
	}
}

// summary is the line plan prints under the action.
func (sq SaleQuote) summary(cr *policies.CollateralRepay, obs *policies.Observation) string {
	bound := policies.FormatAmount(cr.MaxCollateral, cr.CollateralMint, obs.Tokens)
	if sq.Err != "" {
		return fmt.Sprintf("aggregator quote unavailable (%s); the oracle bound holds: at most %s sold at %g", sq.Err, bound, cr.OraclePrice)
	}
	s := fmt.Sprintf("aggregator quote (read now; it may move before the action builds): sells %s for %s, %.6g %s per %s against the oracle's %g (%+.2f %%), impact %.2f %%, %s; bound %s",
		policies.FormatAmount(sq.Sell, cr.CollateralMint, obs.Tokens), policies.FormatAmount(sq.Out, cr.PrincipalMint, obs.Tokens),
		sq.Price, symbol(obs, cr.PrincipalMint), symbol(obs, cr.CollateralMint), cr.OraclePrice, 100*(sq.Price/cr.OraclePrice-1), sq.ImpactPct, sq.Mode, bound)
	if sq.MaxSell > sq.Sell {
		s += fmt.Sprintf(" (the swap may spend up to %s)", policies.FormatAmount(sq.MaxSell, cr.CollateralMint, obs.Tokens))
	}
	if sq.Fallback != "" {
		s += " (no ExactOut route: the whole bound would be sold)"
	}
	return s
}

// symbol returns a mint's symbol, or its address.
func symbol(obs *policies.Observation, mint string) string {
	if t, ok := obs.Tokens[mint]; ok && t.Symbol != "" {
		return t.Symbol
	}
	return mint
}
