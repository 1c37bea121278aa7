package policies

import (
	"fmt"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/market"
)

// rebalanceInputs are what a rebalance decision used.
type rebalanceInputs struct {
	Tick      int64      `json:"tick"`
	Spacing   int64      `json:"spacing"`
	Old       clmm.Range `json:"old"`
	New       clmm.Range `json:"new"`
	Liquidity string     `json:"liquidity"`
}

// decide is rebalance on one dex-a position: when the trigger holds, move it
// to a range of the configured width centred on the current tick and
// aligned to the tick spacing (clmm.CenteredRange).
func (rp *RebalanceParams) decide(e *evaluator, pe *positionEntry, env *positionEnv) {
	f, mint := &pe.facts, pe.facts.PositionMint
	triggered := !f.InRange || (rp.Trigger.EdgePct > 0 && f.DistancePct <= rp.Trigger.EdgePct)
	if !triggered || !e.when(mint, env) || !e.gate.ready(mint) {
		return
	}
	st := &pe.obs.State
	pos, pool := st.Position, st.Pool
	var (
		nr  clmm.Range
		err error
	)
	if rp.WidthPct > 0 {
		nr, err = clmm.CenteredRangePercent(pool.TickCurrent, pool.TickSpacing, rp.WidthPct)
	} else {
		nr, err = clmm.CenteredRange(pool.TickCurrent, pool.TickSpacing, rp.WidthTicks)
	}
	switch {
	case err != nil:
		e.res.skip(mint, SkipError, "new range: "+err.Error())
		return
	case nr == pos.Range:
		e.res.skip(mint, SkipNoop, fmt.Sprintf("the range %s is already centred on tick %d", nr, pool.TickCurrent))
		return
	case pos.Liquidity.Hi != 0:
		e.res.skip(mint, SkipError, "liquidity "+pos.Liquidity.String()+" does not fit the request's 64-bit liquidityAmount")
		return
	case pos.Liquidity.IsZero():
		e.res.skip(mint, SkipNoop, "the position holds no liquidity")
		return
	}
	rp.transfer(e.gate, pe, nr)
}

// transfer plans the E4 transfer_position request.
// slippageDecimals is slippage_bps / 100: a decimal percentage (50 bps → 0.5).
func (rp *RebalanceParams) transfer(g *gate, pe *positionEntry, nr clmm.Range) {
	f, st := &pe.facts, &pe.obs.State
	pos, pool := st.Position, st.Pool
	req := &market.TransferPositionRequest{
		Loan: f.Loan, PositionMint: f.PositionMint, SlippageDecimals: float64(rp.SlippageBps) / 100,
		TransferParams: market.TransferParams{
			CollateralIndex: f.CollateralIndex, LiquidityAmount: market.Amount(pos.Liquidity.Lo),
			TickLowerIndex: nr.Lower, TickUpperIndex: nr.Upper,
			Variant: market.TransferMode{Liquidity: &market.LiquidityTransfer{SlippageToleranceBps: rp.SlippageBps}},
		},
	}
	where := fmt.Sprintf("tick %d is out of range %s", pool.TickCurrent, pos.Range)
	if f.InRange {
		where = fmt.Sprintf("tick %d is %.1f%% of the width from an edge of %s (trigger %s)", pool.TickCurrent, f.DistancePct, pos.Range, rp.Trigger)
	}
	g.plan(Action{
		Target: f.PositionMint, Request: Request{TransferPosition: req},
		Reason: fmt.Sprintf("%s: move to %s (width %d ticks, spacing %d)", where, nr, nr.Width(), pool.TickSpacing),
	}, rebalanceInputs{Tick: f.TickCurrent, Spacing: f.TickSpacing, Old: pos.Range, New: nr, Liquidity: pos.Liquidity.String()})
}

// claimFeesInputs are what a claim-fees decision used.
type claimFeesInputs struct {
	Fees0 uint64 `json:"fees0"`
	Fees1 uint64 `json:"fees1"`
}

// decide is claim-fees on one dex-b position: claim when the fees owed (stored
// plus accrued since the position was last touched, see PositionFacts)
// reach min_fees_0 in token 0 or min_fees_1 in token 1.
func (cp *ClaimFeesParams) decide(e *evaluator, pe *positionEntry, env *positionEnv) {
	f := &pe.facts
	if !f.OwedKnown {
		e.res.skip(f.PositionMint, SkipNoData, "fees owed are unknown: "+pe.obs.State.OwedErr.Error())
		return
	}
	hit0 := cp.MinFees0 > 0 && f.FeesOwed0 >= cp.MinFees0
	hit1 := cp.MinFees1 > 0 && f.FeesOwed1 >= cp.MinFees1
	var byValue string
	if !(hit0 || hit1) && cp.MinValueUSD > 0 {
		var ok bool
		if byValue, ok = cp.worthClaiming(e, pe); !ok {
			return
		}
	}
	if !(hit0 || hit1 || byValue != "") || !e.when(f.PositionMint, env) || !e.gate.ready(f.PositionMint) {
		return
	}
	pool := &pe.obs.State.Pool
	var why string
	switch {
	case byValue != "":
		why = byValue
	case hit0:
		why = fmt.Sprintf("fees owed %s ≥ min_fees_0 %s", FormatAmount(f.FeesOwed0, pool.Mint0.String(), e.obs.Tokens), FormatAmount(cp.MinFees0, pool.Mint0.String(), e.obs.Tokens))
	default:
		why = fmt.Sprintf("fees owed %s ≥ min_fees_1 %s", FormatAmount(f.FeesOwed1, pool.Mint1.String(), e.obs.Tokens), FormatAmount(cp.MinFees1, pool.Mint1.String(), e.obs.Tokens))
	}
	e.gate.plan(Action{
		Target:  f.PositionMint,
		Request: Request{ClaimFees: &market.ClaimFeesRequest{Loan: f.Loan, PositionMint: f.PositionMint}},
		Reason:  why + ": claim fees of position " + shortKey(f.PositionMint),
	}, claimFeesInputs{Fees0: f.FeesOwed0, Fees1: f.FeesOwed1})
}

// WrappedSOL is the wrapped-SOL mint: SOL's price is looked up under it.
const WrappedSOL = "So11111111111111111111111111111111111111112"

// worthClaiming applies min_value_usd: the fees owed must be worth at least
// the minimum and more than the most the claim can cost (the policy's fee,
// rent and tip bounds, in SOL at its price). It returns the reason line
// when they are; when the value or the cost is unknown it records why
// (no_data) and returns false.
func (cp *ClaimFeesParams) worthClaiming(e *evaluator, pe *positionEntry) (string, bool) {
	f := &pe.facts
	if why, unknown := pe.unknown[factFeesOwedUSD]; unknown {
		e.res.skip(f.PositionMint, SkipNoData, "the fees' value is unknown: "+why)
		return "", false
	}
	sol, ok := e.obs.Tokens[WrappedSOL]
	if !ok || !(sol.PriceUSD > 0) {
		e.res.skip(f.PositionMint, SkipNoData, "the claim's cost is unknown: no price for SOL"+unpricedBecause(e.obs, WrappedSOL))
		return "", false
	}
	lamports := e.p.Submit.MaxFeeLamports + e.p.Submit.MaxRentLamports
	if e.p.Submit.Mode == ModeBundle {
		lamports += e.p.Submit.TipLamports
	}
	cost := float64(lamports) / 1e9 * sol.PriceUSD
	if f.FeesOwedUSD < cp.MinValueUSD || f.FeesOwedUSD <= cost {
		return "", false
	}
	pool := &pe.obs.State.Pool
	return fmt.Sprintf("fees owed %s + %s = %.2f USD ≥ min_value_usd %.2f and > the claim's cost of at most %s = %.2f USD",
		FormatAmount(f.FeesOwed0, pool.Mint0.String(), e.obs.Tokens), FormatAmount(f.FeesOwed1, pool.Mint1.String(), e.obs.Tokens),
		f.FeesOwedUSD, cp.MinValueUSD, FormatAmount(lamports, WrappedSOL, e.obs.Tokens), cost), true
}
