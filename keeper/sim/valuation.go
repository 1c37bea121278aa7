package sim

import (
	"math"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
)

// snapshot is one pinned set of oracle prices: every USD figure of one response uses one snapshot.
type snapshot struct {
	w      *world
	prices map[solana.PublicKey]float64
	at     time.Time
}

// snapshot pins the current prices.
func (w *world) snapshot(at time.Time) *snapshot {
	return &snapshot{w: w, prices: *w.prices.Load(), at: at}
}

// price returns the USD price of one whole token of mint.
func (sn *snapshot) price(mint solana.PublicKey) float64 { return sn.prices[mint] }

// usd returns the USD value of amount base units of mint (0 for an unknown mint).
func (sn *snapshot) usd(mint solana.PublicKey, amount uint64) float64 {
	return sn.usdf(mint, float64(amount))
}

// usdf is usd for a fractional amount of base units.
func (sn *snapshot) usdf(mint solana.PublicKey, amount float64) float64 {
	m, ok := sn.w.mintByAddr[mint]
	if !ok {
		return 0
	}
	return amount / units.Pow10(m.Decimals) * sn.prices[mint]
}

// yieldAPY returns a mint's own yield as a fraction.
func (sn *snapshot) yieldAPY(mint solana.PublicKey) float64 {
	if m, ok := sn.w.mintByAddr[mint]; ok {
		return m.YieldAPY
	}
	return 0
}

// positionAmounts returns the token amounts (base units) a CLMM position holds at the pool's price:
// with L the liquidity, √P the pool's sqrt price and √A, √B those of the range bounds,
// below the range amount0 = L(1/√A − 1/√B); inside it amount0 = L(1/√P − 1/√B) and
// amount1 = L(√P − √A); above it amount1 = L(√B − √A).
func positionAmounts(pool clmm.Pool, pos clmm.Position) (amount0, amount1 float64) {
	l := pos.Liquidity.Float64()
	sp := math.Sqrt(pool.RawPrice())
	sa := math.Sqrt(clmm.PriceAtTick(pos.Range.Lower))
	sb := math.Sqrt(clmm.PriceAtTick(pos.Range.Upper))
	switch {
	case sp <= sa:
		return l * (1/sa - 1/sb), 0
	case sp < sb:
		return l * (1/sp - 1/sb), l * (sp - sa)
	default:
		return 0, l * (sb - sa)
	}
}

// positionUSD values a CLMM position, its fees owed included, each token at its oracle price.
func (sn *snapshot) positionUSD(info *poolInfo, pool clmm.Pool, pos clmm.Position) float64 {
	a0, a1 := positionAmounts(pool, pos)
	a0 += float64(pos.FeesOwed0)
	a1 += float64(pos.FeesOwed1)
	return sn.usdf(info.Mint0.Address, a0) + sn.usdf(info.Mint1.Address, a1)
}
