package report

import (
	"cmp"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// Share is one holder's part of a reward budget.
type Share struct {
	// Holder is a borrower wallet, or a loan address when E7 was asked
	// with pdas.
	Holder string `json:"holder"`
	// DepositSeconds is the holder's time-weighted collateral over the
	// range (E7), to float64 precision; the split uses the exact figure.
	DepositSeconds float64 `json:"deposit_seconds"`
	// Fraction is the holder's share of all deposit-seconds.
	Fraction float64 `json:"fraction"`
	// Units is the holder's part of the budget in smallest units.
	Units uint64 `json:"units"`
	// Remainder is true when Units includes one unit of the remainder.
	Remainder bool `json:"remainder,omitempty"`
}

// Split divides budget smallest units among holders in proportion to
// their deposit-seconds, exactly: each holder first gets the floor of
// budget × its deposit-seconds ÷ all deposit-seconds; the units left over
// (fewer than the number of holders) go one each to the holders with the
// largest fractional parts, ties to the lower holder address in byte
// order (the largest-remainder method). The parts sum to budget. Holders
// with zero deposit-seconds get nothing and are listed; a negative figure,
// or no deposit-seconds at all, is an error. Shares are ordered by units,
// then by holder.
func Split(holders map[string]*big.Rat, budget uint64) ([]Share, error) {
	total := new(big.Rat)
	for h, ds := range holders {
		if ds.Sign() < 0 {
			return nil, fmt.Errorf("holder %s has negative deposit-seconds %s", h, ds.FloatString(3))
		}
		total.Add(total, ds)
	}
	if total.Sign() == 0 {
		return nil, errors.New("no holder has deposit-seconds in the range: nothing to split by")
	}
	type part struct {
		share Share
		frac  *big.Rat // the fractional part of the exact share, in [0, 1)
	}
	parts := make([]part, 0, len(holders))
	b := new(big.Int).SetUint64(budget)
	left := new(big.Int).Set(b)
	for h, ds := range holders {
		exact := new(big.Rat).Mul(new(big.Rat).SetInt(b), ds)
		exact.Quo(exact, total)
		whole := new(big.Int).Quo(exact.Num(), exact.Denom())
		frac := new(big.Rat).Sub(exact, new(big.Rat).SetInt(whole))
		f, _ := new(big.Rat).Quo(ds, total).Float64()
		dsf, _ := ds.Float64()
		parts = append(parts, part{Share{Holder: h, DepositSeconds: dsf, Fraction: f, Units: whole.Uint64()}, frac})
		left.Sub(left, whole)
	}
	slices.SortFunc(parts, func(a, b part) int {
		if c := b.frac.Cmp(a.frac); c != 0 {
			return c
		}
		return strings.Compare(a.share.Holder, b.share.Holder)
	})
	for i := 0; left.Sign() > 0; i++ {
		parts[i].share.Units++
		parts[i].share.Remainder = true
		left.Sub(left, big.NewInt(1))
	}
	out := make([]Share, len(parts))
	for i, p := range parts {
		out[i] = p.share
	}
	slices.SortFunc(out, func(a, b Share) int {
		if c := cmp.Compare(b.Units, a.Units); c != 0 {
			return c
		}
		return strings.Compare(a.Holder, b.Holder)
	})
	return out, nil
}
