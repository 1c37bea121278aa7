package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/jupiter"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/policies"
	"github.com/keeper-project/keeper/signer"
)

// Swapper is the DEX aggregator a repay from collateral asks for its swap.
// *jupiter.Client implements it.
type Swapper interface {
	Quote(ctx context.Context, req jupiter.QuoteRequest) (*jupiter.Quote, error)
	SwapInstructions(ctx context.Context, req jupiter.SwapRequest) (*jupiter.SwapInstructions, error)
}

// CollateralConfig is what a repay from collateral needs beyond the market.
type CollateralConfig struct {
	// Swapper quotes and builds the swap; nil: repays from collateral fail
	// to build.
	Swapper Swapper
	// Programs are the aggregator's programs the quote's instructions may
	// call (the guard allows them for repay-collateral only).
	Programs []solana.PublicKey
	// Layout lays the E2 steps out (market.CollateralRepayLayout).
	Layout market.CollateralRepayLayout
	// Balance reads the wallet's balance of a mint, for source auto; nil:
	// auto sells collateral for the whole debt.
	Balance func(ctx context.Context, mint string) (uint64, error)
	// ExactOutSlippageBps is the slippage asked of an ExactOut quote, on
	// its input (0: DefaultExactOutSlippageBps); the oracle bound caps it.
	ExactOutSlippageBps uint16
}

// DefaultExactOutSlippageBps is the slippage of an ExactOut quote unless
// configured: Jupiter's own default. An ExactOut quote's input already
// holds the pool's impact; its slippage covers only the price moving
// between the quote and the landing, and every unit of it leaves the loan.
const DefaultExactOutSlippageBps = 50

// swapBounds returns the guard's bounds of cr.
func swapBounds(cr *policies.CollateralRepay, programs []solana.PublicKey) (signer.SwapBounds, error) {
	col, err := solana.PublicKeyFromBase58(cr.CollateralMint)
	if err != nil {
		return signer.SwapBounds{}, fmt.Errorf("collateral mint %q: %w", cr.CollateralMint, err)
	}
	prin, err := solana.PublicKeyFromBase58(cr.PrincipalMint)
	if err != nil {
		return signer.SwapBounds{}, fmt.Errorf("principal mint %q: %w", cr.PrincipalMint, err)
	}
	return signer.SwapBounds{CollateralMint: col, PrincipalMint: prin, MaxCollateral: cr.MaxCollateral, MinOut: cr.MinOut, Programs: programs}, nil
}

// buildCollateral builds a repay from collateral: the part the wallet
// cannot pay (source auto: its balance first), sold through the
// aggregator, the quote checked against the oracle-derived bounds before
// the market sees it, then one E2 build. A quote the bounds refuse is a
// *signer.Refusal.
func (a *attempt) buildCollateral(ctx context.Context, key market.IdempotencyKey, cr *policies.CollateralRepay) ([]built, error) {
	cc := a.e.cfg.Collateral
	fromCollateral := cr.Debt
	if cr.WalletFirst && cc.Balance != nil {
		have, err := cc.Balance(ctx, cr.PrincipalMint)
		if err != nil {
			return nil, fmt.Errorf("repay from collateral: wallet balance: %w", err)
		}
		if have >= cr.Debt {
			return build(ctx, a.e.cfg.Builder, key, policies.Request{BuildLoan: &market.BuildLoanRequest{Loan: cr.Loan, Steps: []market.Step{{
				Type: market.StepRepay, Params: market.StepParams{Loan: cr.Loan, RepayParams: []market.RepayParam{{Amount: market.Amount(cr.Debt), LedgerIndex: cr.LedgerIndex}}}}}}})
		}
		fromCollateral = cr.Debt - have
	}
	sell := cr.MaxCollateral
	if fromCollateral < cr.Debt {
		sell = cr.MaxCollateral * fromCollateral / cr.Debt
	}
	b, err := swapBounds(cr, cc.Programs)
	if err != nil {
		return nil, err
	}
	b.MinOut = fromCollateral
	q, err := a.saleQuote(ctx, cc, cr, fromCollateral, sell)
	if err != nil {
		return nil, err
	}
	sw, err := cc.Swapper.SwapInstructions(ctx, jupiter.SwapRequest{Quote: q, UserPublicKey: a.e.wallet.String(), WrapAndUnwrapSol: false})
	if err != nil {
		return nil, err
	}
	sq := swapQuote(q, sw)
	if err := signer.CheckSwapQuote(b, sq); err != nil {
		return nil, err
	}
	if q.SwapMode == jupiter.ExactOut {
		// The swap spends what the pool's curve needs when it lands: within
		// the quote's slippage either side of its inAmount, the rest of the
		// withdrawal stays in the wallet.
		b.Unspent = 2 * (sq.InAmount - min(q.InAmount.Uint64(), sq.InAmount))
	}
	a.p.Swap = &b
	a.log.Info("Selling collateral", "mode", q.SwapMode, "withdraw", sq.InAmount, "expected_in", q.InAmount, "collateral_mint", cr.CollateralMint,
		"out", q.OutAmount, "min_out", sq.MinOut, "oracle_price", cr.OraclePrice, "price_impact_pct", float64(q.PriceImpactPct))
	withdraw := market.Amount(sq.InAmount)
	layout := cc.Layout
	steps, err := layout.Steps(market.CollateralRepay{Loan: cr.Loan, LedgerIndex: cr.LedgerIndex, Debt: market.Amount(cr.Debt),
		CollateralMint: cr.CollateralMint, Withdraw: withdraw, Setup: sw.SetupInstructions, Swap: sw.Swap(), Luts: sw.AddressLookupTableAddresses})
	if err != nil {
		return nil, err
	}
	if layout.FlashBorrow && fromCollateral < cr.Debt {
		steps[0].Params.RepayParams = []market.RepayParam{{Amount: market.Amount(fromCollateral), LedgerIndex: cr.LedgerIndex}}
	}
	return build(ctx, a.e.cfg.Builder, key, policies.Request{BuildLoan: &market.BuildLoanRequest{Loan: cr.Loan, Steps: steps}})
}

// saleQuote asks the aggregator for the sale (QuoteSale), and logs a
// fallback to ExactIn.
func (a *attempt) saleQuote(ctx context.Context, cc CollateralConfig, cr *policies.CollateralRepay, out, sell uint64) (*jupiter.Quote, error) {
	q, unroutable, err := QuoteSale(ctx, cc, cr, out, sell)
	if unroutable != nil {
		a.log.Info("Aggregator cannot route ExactOut; selling the whole bound ExactIn", "collateral_mint", cr.CollateralMint, "sell", sell, "err", unroutable)
	}
	return q, err
}

// QuoteSale asks cc's aggregator for the sale of cr's collateral that pays
// out principal, spending at most sell: ExactOut for out, its slippage (on
// the input) the configured one, narrowed so that the most it may spend
// stays within sell. An aggregator that cannot route ExactOut (a 4xx
// answer: most DEXes cannot quote an exact output) gets the ExactIn sale
// of sell instead, which sells the whole bound; unroutable is then its
// ExactOut answer.
func QuoteSale(ctx context.Context, cc CollateralConfig, cr *policies.CollateralRepay, out, sell uint64) (q *jupiter.Quote, unroutable, err error) {
	if cc.Swapper == nil {
		return nil, nil, errors.New("repay from collateral: no swap aggregator configured (config swap)")
	}
	slip := min(cmp.Or(cc.ExactOutSlippageBps, DefaultExactOutSlippageBps), cr.SlippageBps)
	req := jupiter.QuoteRequest{InputMint: cr.CollateralMint, OutputMint: cr.PrincipalMint, Amount: out, SlippageBps: slip, SwapMode: jupiter.ExactOut}
	q, err = cc.Swapper.Quote(ctx, req)
	if je, ok := errors.AsType[*jupiter.Error](err); ok && je.Status >= 400 && je.Status < 500 {
		q, err = exactInQuote(ctx, cc, cr, out, sell)
		return q, je, err
	}
	if err != nil {
		return nil, nil, err
	}
	in := q.InAmount.Uint64()
	if q.OtherAmountThreshold.Uint64() <= sell || in >= sell {
		return q, nil, nil // within the bound, or beyond it at any slippage: the guard refuses it
	}
	req.SlippageBps = uint16((sell - in) * 10000 / in) // < slip: the threshold exceeded sell
	q, err = cc.Swapper.Quote(ctx, req)
	return q, nil, err
}

// exactInQuote asks for the ExactIn sale of sell: when the route pays
// enough but its slippage allowance would let it yield less than out, it
// asks again allowing only what out leaves.
func exactInQuote(ctx context.Context, cc CollateralConfig, cr *policies.CollateralRepay, out, sell uint64) (*jupiter.Quote, error) {
	req := jupiter.QuoteRequest{InputMint: cr.CollateralMint, OutputMint: cr.PrincipalMint, Amount: sell, SlippageBps: cr.SlippageBps, SwapMode: jupiter.ExactIn}
	q, err := cc.Swapper.Quote(ctx, req)
	if err != nil {
		return nil, err
	}
	if got := q.OutAmount.Uint64(); q.OtherAmountThreshold.Uint64() < out && got >= out {
		req.SlippageBps = uint16((got - out) * 10000 / got)
		return cc.Swapper.Quote(ctx, req)
	}
	return q, nil
}

// swapQuote is the guard's view of the aggregator's answer: what the swap
// may spend (ExactIn: its input; ExactOut: its otherAmountThreshold) and
// the least it pays (ExactIn: its otherAmountThreshold; ExactOut: its
// exact output).
func swapQuote(q *jupiter.Quote, sw *jupiter.SwapInstructions) signer.SwapQuote {
	in, _ := solana.PublicKeyFromBase58(q.InputMint)
	out, _ := solana.PublicKeyFromBase58(q.OutputMint)
	sq := signer.SwapQuote{InputMint: in, OutputMint: out, InAmount: q.InAmount.Uint64(), MinOut: q.OtherAmountThreshold.Uint64()}
	if q.SwapMode == jupiter.ExactOut {
		sq.InAmount, sq.MinOut, sq.ExactOut = q.OtherAmountThreshold.Uint64(), q.OutAmount.Uint64(), true
	}
	all := append(append(append([]market.Instruction{}, sw.ComputeBudgetInstructions...), sw.SetupInstructions...), sw.Swap()...)
	for _, ix := range all {
		p, err := solana.PublicKeyFromBase58(ix.ProgramID)
		if err != nil {
			p = solana.PublicKey{} // an unparsable program is not an allowed one
		}
		sq.Programs = append(sq.Programs, p)
	}
	return sq
}
