package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/chain/tipfloor"
	"github.com/keeper-project/keeper/signer"
)

// FeeMarket reads the compute-unit prices recent blocks charged to
// transactions write-locking given accounts. *chain.Reads implements it.
type FeeMarket interface {
	RecentPrioritizationFees(ctx context.Context, accounts []solana.PublicKey) ([]chain.PrioritizationFee, error)
}

// TipFloor reads the tips recent bundles landed with. *tipfloor.Reader
// implements it.
type TipFloor interface {
	Read(ctx context.Context) (tipfloor.Floor, error)
}

// The pricing defaults.
const (
	// DefaultPercentile is the percentile of the recent blocks' prices a
	// transaction bids, and of the landed tips a bundle tips.
	DefaultPercentile = 75
	// DefaultRaisePercent raises the price of each new attempt over the
	// last one's, in percent, up to the cap.
	DefaultRaisePercent = 25
)

// PriorityConfig is how keeper prices what it lands.
type PriorityConfig struct {
	// Fees reads the fee market; nil turns priority pricing off: keeper
	// keeps the compute budget the market built.
	Fees FeeMarket
	// TipFloor reads the landed tips; nil starts tips at Tip.Floor.
	TipFloor TipFloor
	// MaxUnitPrice is the global cap on the price keeper bids, in
	// micro-lamports per unit; a policy's cap may only lower it.
	MaxUnitPrice uint64
	// UnitMargin is the margin over the simulated units, in percent (0
	// counts as 1; the config's default is 10).
	UnitMargin uint64
	// RaisePercent raises each new attempt's price (0: DefaultRaisePercent).
	RaisePercent uint64
	// SetupAnywhere accepts keeper's compute budget anywhere in a market's
	// answer; by default it must open the transaction (assumption M-32
	// in docs/assumptions.md).
	SetupAnywhere bool
}

// pricing is what one action's attempts learn of its price: the units and
// accounts of the last answer, and the last price bid.
type pricing struct {
	units    uint64
	accounts []solana.PublicKey
	price    uint64
}

// ErrAboveCap marks an action the fee market prices above its cap.
var ErrAboveCap = errors.New("the market's price is above the cap")

// unitPriceCap is the compute-unit price keeper may bid for p: the global
// cap, lowered by the policy's.
func (e *Executor) unitPriceCap(p Plan) uint64 {
	c := e.cfg.Priority.MaxUnitPrice
	if pc := p.Bounds.MaxComputeUnitPrice; pc > 0 && (c == 0 || pc < c) {
		c = pc
	}
	return c
}

// bid reads the fee market over the accounts the action's transactions
// write-lock and returns the compute-unit price to bid: the plan's
// percentile of the recent blocks' prices, raised over the last attempt's
// bid, at most the cap. A market price above the cap is an ErrAboveCap
// naming the cap, the price and the accounts.
func (a *attempt) bid(ctx context.Context) (market, price uint64, err error) {
	pr := a.pricing
	fees, err := a.e.cfg.Priority.Fees.RecentPrioritizationFees(ctx, pr.accounts)
	if err != nil {
		return 0, 0, fmt.Errorf("read the fee market: %w", err)
	}
	pct := pctOf(a.p)
	market = chain.FeePercentile(fees, pct)
	limit := a.e.unitPriceCap(a.p)
	if limit > 0 && market > limit {
		return market, 0, fmt.Errorf("%w: p%d of the last %d blocks is %d micro-lamports per compute unit, cap %d, measured on %s",
			ErrAboveCap, pct, len(fees), market, limit, joinKeys(pr.accounts, ", "))
	}
	price = market
	if pr.price > 0 {
		raise := cmp.Or(a.e.cfg.Priority.RaisePercent, DefaultRaisePercent)
		price = max(price, pr.price+(pr.price*raise+99)/100)
	}
	if limit > 0 {
		price = min(price, limit)
	}
	return market, price, nil
}

// tipBid is the first tip of a bundle: the plan's percentile of the tips
// that landed recently, at least the config's floor; one above the tip
// cap is an ErrAboveCap.
func (a *attempt) tipBid(ctx context.Context) (uint64, error) {
	pol := a.tipPolicy()
	if a.e.cfg.Priority.TipFloor == nil {
		return pol.Floor, nil
	}
	f, err := a.e.cfg.Priority.TipFloor.Read(ctx)
	if err != nil {
		a.log.Warn("Cannot read the tip floor; tipping the config's floor", "err", err)
		return pol.Floor, nil
	}
	pct := cmp.Or(a.p.Submit.TipPercentile, DefaultPercentile)
	tip := f.Percentile(pct)
	if tip > pol.Cap {
		return 0, fmt.Errorf("%w: the p%d landed tip is %d lamports, tip cap %d", ErrAboveCap, pct, tip, pol.Cap)
	}
	return max(tip, pol.Floor), nil
}

// writable lists the accounts the transactions write-lock, without
// duplicates, at most as many as getRecentPrioritizationFees takes.
func writable(txs []*signer.Tx) []solana.PublicKey {
	seen := map[solana.PublicKey]bool{}
	var out []solana.PublicKey
	for _, t := range txs {
		for _, k := range t.WritableStaticKeys() {
			if !seen[k] && len(out) < chain.MaxPrioritizationFeeAccounts {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}
