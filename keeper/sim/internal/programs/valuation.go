package programs

import (
	"math"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
)

// Snapshot is one pinned set of oracle prices: every USD figure of one response uses one snapshot.
type Snapshot struct {
	W      *Catalog
	Prices map[solana.PublicKey]float64
	At     time.Time
}

// Snapshot pins the current prices.
func (w *Catalog) Snapshot(at time.Time) *Snapshot {
	return &Snapshot{W: w, Prices: *w.Prices.Load(), At: at}
}

// Price returns the USD price of one whole token of mint.
func (sn *Snapshot) Price(mint solana.PublicKey) float64 { return sn.Prices[mint] }

// Usd returns the USD value of amount base units of mint (0 for an unknown mint).
func (sn *Snapshot) Usd(mint solana.PublicKey, amount uint64) float64 {
	return sn.Usdf(mint, float64(amount))
}

// Usdf is usd for a fractional amount of base units.
func (sn *Snapshot) Usdf(mint solana.PublicKey, amount float64) float64 {
	m, ok := sn.W.MintByAddr[mint]
	if !ok {
		return 0
	}
	return amount / units.Pow10(m.Decimals) * sn.Prices[mint]
}

// YieldAPY returns a mint's own yield as a fraction.
func (sn *Snapshot) YieldAPY(mint solana.PublicKey) float64 {
	if m, ok := sn.W.MintByAddr[mint]; ok {
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

// PositionUSD values a CLMM position, its fees owed included, each token at its oracle price.
func (sn *Snapshot) PositionUSD(info *Pool, pool clmm.Pool, pos clmm.Position) float64 {
	a0, a1 := positionAmounts(pool, pos)
	a0 += float64(pos.FeesOwed0)
	a1 += float64(pos.FeesOwed1)
	return sn.Usdf(info.Mint0.Address, a0) + sn.Usdf(info.Mint1.Address, a1)
}
