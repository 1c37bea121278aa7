package signer

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// The rules of a repay from collateral ([KindRepayCollateral]). They bound
// the sequence by value, from the oracle's prices, before the market builds
// it ([CheckSwapQuote]) and after it is simulated ([CheckSwapOutflows]); the
// static guard's allowlist keeps the aggregator's programs to this kind.
const (
	// RuleSwapPrice: the swap's minimum output (an ExactIn quote's
	// otherAmountThreshold) is below what the oracle says the collateral sold
	// is worth, less max_slippage, or an ExactOut quote may spend more than
	// the bound for the debt: a route at a bad price.
	RuleSwapPrice Rule = "swap-price"
	// RuleSwapWithdrawal: more collateral leaves the loan than the oracle
	// value of the repaid debt × (1 + max_slippage), in the quote or in the
	// simulated transaction.
	RuleSwapWithdrawal Rule = "swap-withdrawal"
	// RuleSwapProgram: an instruction of the aggregator's answer calls a
	// program that is not an allowed swap program.
	RuleSwapProgram Rule = "swap-program"
	// RuleSwapShape: the quote sells another mint or buys another mint.
	RuleSwapShape Rule = "swap-shape"
)

// SwapBounds bound one repay from collateral, derived from the oracle's
// prices when keeper planned it.
type SwapBounds struct {
	// CollateralMint is sold for PrincipalMint.
	CollateralMint, PrincipalMint solana.PublicKey
	// MaxCollateral is the most collateral that may leave the loan: the
	// oracle value of the repaid debt × (1 + max_slippage), in collateral
	// smallest units.
	MaxCollateral uint64
	// MinOut is the least principal the swap may yield: the oracle value of
	// the collateral sold ÷ (1 + max_slippage), and never less than the debt
	// repaid from collateral.
	MinOut uint64
	// Programs are the aggregator's allowed programs (plus the common ones
	// its setup uses: System, Token, Associated Token, ComputeBudget).
	Programs []solana.PublicKey
	// Unspent is how much of the withdrawal an ExactOut swap may leave in
	// the wallet: it withdraws the most the swap may spend and the swap
	// spends what the pool's curve needs when it lands. 0 for ExactIn,
	// which sells all of it.
	Unspent uint64
}

// SwapQuote is what the aggregator answered: the quote and the programs of
// every instruction it returned.
type SwapQuote struct {
	InputMint, OutputMint solana.PublicKey
	// InAmount is the most the swap may spend, which is withdrawn: the
	// input of an ExactIn quote, the otherAmountThreshold of an ExactOut one.
	InAmount uint64
	// MinOut is the least the swap pays: the otherAmountThreshold of an
	// ExactIn quote, the output of an ExactOut one.
	MinOut uint64
	// ExactOut says the quote fixes the output: a price below the bound
	// shows as an input above MaxCollateral.
	ExactOut bool
	Programs []solana.PublicKey
}

// CheckSwapQuote checks the aggregator's answer against b before keeper
// hands its instructions to the market.
func CheckSwapQuote(b SwapBounds, q SwapQuote) error {
	switch {
	case q.InputMint != b.CollateralMint || q.OutputMint != b.PrincipalMint:
		return refuse(RuleSwapShape, "the route sells %s for %s, not %s for %s", q.InputMint, q.OutputMint, b.CollateralMint, b.PrincipalMint)
	case q.ExactOut && q.InAmount > b.MaxCollateral:
		return refuse(RuleSwapPrice, "the route may spend %d of %s to pay %d, above the bound %d: a price under the oracle's less max_slippage",
			q.InAmount, b.CollateralMint, q.MinOut, b.MaxCollateral)
	case q.InAmount > b.MaxCollateral:
		return refuse(RuleSwapWithdrawal, "the route sells %d of %s, above the bound %d (oracle value of the debt plus max_slippage)",
			q.InAmount, b.CollateralMint, b.MaxCollateral)
	case q.MinOut < b.MinOut:
		return refuse(RuleSwapPrice, "the route guarantees %d of %s, below the oracle-derived minimum %d", q.MinOut, b.PrincipalMint, b.MinOut)
	}
	allowed := setOf(append([]solana.PublicKey{solana.SystemProgramID, solana.TokenProgramID, solana.Token2022ProgramID,
		solana.SPLAssociatedTokenAccountProgramID, solana.ComputeBudget}, b.Programs...))
	for i, p := range q.Programs {
		if !allowed[p] {
			return refuseIx(RuleSwapProgram, i, p, "the aggregator's instruction %d calls a program that is not an allowed swap program", i)
		}
	}
	return nil
}

// swapDust is how much collateral the wallet may gain in a simulated repay
// from collateral without counting as an extra withdrawal, in smallest
// units: for wrapped SOL, the rent of two token accounts the sequence may
// close back to the wallet.
const swapDust = 2 * 2_039_280

// CheckSwapOutflows checks the simulated outflows of a repay from collateral:
// besides [CheckOutflows] (the wallet loses no principal beyond the wallet
// share of the repay, nothing else beyond fees and tip), the collateral the
// market withdraws must all be sold (an ExactOut swap may leave
// sb.Unspent of it): a wallet that gains more collateral means the
// transaction takes more out of the loan than the swap sells.
func CheckSwapOutflows(b Bounds, sb SwapBounds, o Outflows) error {
	if err := CheckOutflows(KindRepayCollateral, b, o); err != nil {
		return err
	}
	gain := -o.Tokens[sb.CollateralMint.String()]
	if sb.CollateralMint == solana.WrappedSol {
		gain += -o.Lamports
	}
	if gain > swapDust+int64(sb.Unspent) {
		return refuse(RuleSwapWithdrawal, "simulation shows the wallet gaining %d of %s: the transaction withdraws more collateral than the swap sells",
			gain, sb.CollateralMint)
	}
	return nil
}

// SwapBoundsFromOracle derives the bounds of selling collateral to repay
// debt principal units at the oracle's USD prices (per whole token) with
// max_slippage (a fraction): MaxCollateral = debt's value × (1+s) in
// collateral, MinOut = debt. A price that is not positive makes the bounds
// unknown: an error, never a zero bound.
func SwapBoundsFromOracle(debt uint64, principalUSD, collateralUSD float64, principalDecimals, collateralDecimals uint8, maxSlippage float64) (maxCollateral, minOut uint64, err error) {
	if !(principalUSD > 0) || !(collateralUSD > 0) {
		return 0, 0, fmt.Errorf("signer: swap bounds: oracle prices unknown (principal %v, collateral %v)", principalUSD, collateralUSD)
	}
	if !(maxSlippage > 0 && maxSlippage < 1) {
		return 0, 0, fmt.Errorf("signer: swap bounds: max_slippage %v is not in (0, 1)", maxSlippage)
	}
	usd := float64(debt) / pow10(principalDecimals) * principalUSD
	c := usd / collateralUSD * pow10(collateralDecimals) * (1 + maxSlippage)
	if c >= 1<<63 {
		return 0, 0, fmt.Errorf("signer: swap bounds: %g collateral units overflow", c)
	}
	return uint64(c), debt, nil
}

// pow10 returns 10^d.
func pow10(d uint8) float64 {
	v := 1.0
	for range d {
		v *= 10
	}
	return v
}
