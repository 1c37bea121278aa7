package market

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// PrincipalPriceFunc returns the USD price of one smallest unit of a principal mint, or false when
// unknown.
type PrincipalPriceFunc func(mint string) (usdPerUnit float64, ok bool)

// LedgerFacts are one ledger's debt and health.
type LedgerFacts struct {
	LedgerIndex   int
	PrincipalMint string
	// Outstanding is principalDue − principalRepaid (smallest units).
	Outstanding Amount
	// Debt is Outstanding + interestOutstanding + interestPerSecond·max(0, endTime − now), in principal
	// smallest units: the debt including the interest that will accrue to the end of the term.
	Debt float64
	// DebtUSD is Debt in USD.
	DebtUSD float64
	// CapacityUSD is Σ_c collateralUsd_c · weights[c]/1e6 · lqtRatios[c]/1e6.
	CapacityUSD float64
	// Health is 1 − DebtUSD/CapacityUSD (1 when there is no debt; 0 = liquidatable; below 0 = past it).
	Health float64
	// TimeToEnd is endTime − now (negative once the term has ended).
	TimeToEnd time.Duration
}

// LoanFacts are the facts a keeper decides on (market-facts.md "Loans and health").
type LoanFacts struct {
	// Active is closed == false and some ledger has principalDue − principalRepaid > 0.
	Active bool
	// Health is the minimum over ledgers with debt (1 when none has debt).
	Health float64
	// DebtUSD sums the ledgers' DebtUSD; CollateralUSD sums the collateral entries' USD values.
	DebtUSD       float64
	CollateralUSD float64
	// CapacityUSD sums the ledgers' CapacityUSD.
	CapacityUSD float64
	// CurrentLTV is DebtUSD/CollateralUSD; LiquidationLTV is CapacityUSD/CollateralUSD, the LTV at
	// which the loan as a whole reaches health 0 (one ledger: 1 − CurrentLTV/LiquidationLTV = Health).
	CurrentLTV     float64
	LiquidationLTV float64
	// TimeToEnd is the shortest endTime − now over ledgers with debt (0 when none has debt).
	TimeToEnd time.Duration
	Ledgers   []LedgerFacts
}

// ComputeLoanFacts computes a loan's facts at now.
//
// Collateral USD per entry comes from collateralBreakdown by assetIdentifier (a loan with a single
// collateral entry and no breakdown uses collateralUsd). Debt is converted to USD with price when it
// knows the ledger's principal mint, else with the loan's own ratio principalUsd / Σ outstanding
// principal, which is valid only when every ledger with debt has the same principal mint (principalUsd
// is taken to value outstanding principal; see docs/assumptions.md). A ledger with debt and no
// capacity, or debt that cannot be priced, is an error: health cannot be known.
func ComputeLoanFacts(item LoanItem, now time.Time, price PrincipalPriceFunc) (LoanFacts, error) {
	var buf [maxCollateral]assetUSD
	usd, err := collateralUSD(item, buf[:0])
	if err != nil {
		return LoanFacts{}, fmt.Errorf("market: loan %s: %w", item.Loan.Address, err)
	}
	toUSD := newDebtPricer(item, price)
	f := LoanFacts{Health: 1, Ledgers: make([]LedgerFacts, 0, len(item.Ledgers))}
	for _, c := range item.Collateral {
		f.CollateralUSD += usd.of(c.AssetIdentifier)
	}
	first := true
	for _, l := range item.Ledgers {
		lf, err := ledgerFacts(l, item.Collateral, usd, now, &toUSD)
		if err != nil {
			return LoanFacts{}, fmt.Errorf("market: loan %s: %w", item.Loan.Address, err)
		}
		f.Ledgers = append(f.Ledgers, lf)
		f.Active = f.Active || lf.Outstanding > 0
		if lf.Debt <= 0 {
			continue
		}
		f.DebtUSD += lf.DebtUSD
		f.CapacityUSD += lf.CapacityUSD
		f.Health = min(f.Health, lf.Health)
		if first || lf.TimeToEnd < f.TimeToEnd {
			f.TimeToEnd, first = lf.TimeToEnd, false
		}
	}
	f.Active = f.Active && !item.Loan.Closed
	f.CurrentLTV = ratio(f.DebtUSD, f.CollateralUSD)
	f.LiquidationLTV = ratio(f.CapacityUSD, f.CollateralUSD)
	return f, nil
}

// ledgerFacts computes one ledger's facts.
func ledgerFacts(l Ledger, coll []Collateral, usd usdTable, now time.Time, toUSD *debtPricer) (LedgerFacts, error) {
	end := l.EndTime.Time()
	lf := LedgerFacts{
		LedgerIndex: l.LedgerIndex, PrincipalMint: l.PrincipalMint, Outstanding: l.OutstandingPrincipal(),
		TimeToEnd: end.Sub(now), Health: 1,
	}
	remaining := max(0, float64(int64(l.EndTime)-now.Unix()))
	lf.Debt = lf.Outstanding.Float64() + l.InterestOutstanding.Float64() + l.InterestPerSecond.Float64()*remaining
	for _, c := range coll {
		lf.CapacityUSD += usd.of(c.AssetIdentifier) * cbpsAt(l.Weights, c.Index) * cbpsAt(l.LqtRatios, c.Index)
	}
	if lf.Debt <= 0 {
		return lf, nil
	}
	var err error
	if lf.DebtUSD, err = toUSD.usd(l, lf.Debt); err != nil {
		return LedgerFacts{}, err
	}
	if !(lf.CapacityUSD > 0) {
		return LedgerFacts{}, fmt.Errorf("ledger %d has debt but no collateral capacity (weights or lqtRatios missing)", l.LedgerIndex)
	}
	lf.Health = 1 - lf.DebtUSD/lf.CapacityUSD
	return lf, nil
}

// cbpsAt returns row[i] as a fraction, or 0 when i is out of range.
func cbpsAt(row []CBPS, i int) float64 {
	if i < 0 || i >= len(row) {
		return 0
	}
	return row[i].Fraction()
}

// maxCollateral is how many collateral slots a loan has (market-facts.md);
// tables of that size stay off the heap.
const maxCollateral = 5

// assetUSD is the USD value of one collateral asset.
type assetUSD struct {
	id  string
	usd float64
}

// usdTable holds the USD value of each of a loan's collateral assets. A loan
// has at most a handful, so a slice scanned in order beats a map and
// allocates nothing.
type usdTable []assetUSD

// of returns the USD value of the asset, or 0.
func (t usdTable) of(id string) float64 {
	for _, a := range t {
		if a.id == id {
			return a.usd
		}
	}
	return 0
}

func (t usdTable) add(id string, usd float64) usdTable {
	for i := range t {
		if t[i].id == id {
			t[i].usd += usd
			return t
		}
	}
	return append(t, assetUSD{id, usd})
}

// collateralUSD values each collateral entry by its assetIdentifier, from
// collateralBreakdown (or collateralUsd for a single collateral), appending
// to buf.
func collateralUSD(item LoanItem, buf usdTable) (usdTable, error) {
	usd := buf
	for _, b := range item.CollateralBreakdown {
		usd = usd.add(b.AssetIdentifier, b.Usd)
	}
	for _, c := range item.Collateral {
		if slices.ContainsFunc(usd, func(a assetUSD) bool { return a.id == c.AssetIdentifier }) {
			continue
		}
		if len(item.Collateral) != 1 {
			return nil, fmt.Errorf("collateral %s has no collateralBreakdown entry", c.AssetIdentifier)
		}
		usd = usd.add(c.AssetIdentifier, item.CollateralUsd)
	}
	return usd, nil
}

// debtPricer converts a ledger's debt (principal smallest units) to USD:
// with the injected price of its mint, else with the loan's own
// principalUsd per outstanding unit.
type debtPricer struct {
	price    PrincipalPriceFunc
	perUnit  float64
	ratioErr error
}

func newDebtPricer(item LoanItem, price PrincipalPriceFunc) debtPricer {
	perUnit, err := loanPrincipalRatio(item)
	return debtPricer{price: price, perUnit: perUnit, ratioErr: err}
}

func (p *debtPricer) usd(l Ledger, debt float64) (float64, error) {
	if p.price != nil {
		if v, ok := p.price(l.PrincipalMint); ok && finite(v) && v >= 0 {
			return debt * v, nil
		}
	}
	if p.ratioErr != nil {
		return 0, fmt.Errorf("ledger %d: no price for principal mint %s: %w", l.LedgerIndex, l.PrincipalMint, p.ratioErr)
	}
	return debt * p.perUnit, nil
}

var (
	errMixedPrincipal = errors.New("ledgers have different principal mints, so principalUsd cannot price them")
	errNoPrincipal    = errors.New("no outstanding principal to derive a price from principalUsd")
)

// loanPrincipalRatio returns the USD value of one principal smallest unit implied by the loan's
// principalUsd, when all ledgers with outstanding principal share one mint.
func loanPrincipalRatio(item LoanItem) (float64, error) {
	var mint string
	var outstanding float64
	for _, l := range item.Ledgers {
		if l.OutstandingPrincipal() == 0 {
			continue
		}
		if mint != "" && l.PrincipalMint != mint {
			return 0, errMixedPrincipal
		}
		mint = l.PrincipalMint
		outstanding += l.OutstandingPrincipal().Float64()
	}
	if outstanding == 0 || !finite(item.PrincipalUsd) || item.PrincipalUsd < 0 {
		return 0, errNoPrincipal
	}
	return item.PrincipalUsd / outstanding, nil
}
