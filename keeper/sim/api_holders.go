package sim

import (
	"cmp"
	"slices"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
)

// holderEvent is one balance change of a holder for the requested mint.
type holderEvent struct {
	time  int64
	delta float64 // decimal-adjusted
}

// historicalHolders serves E7 by the spec's rules: AddCollateral adds and RemoveCollateral subtracts
// the event's amount when its asset identifier is the mint; Liquidate subtracts the sum of its
// transfers of the mint to the liquidator (its own amount, principal repaid, is ignored). Amounts are
// divided by 10^decimals of the mint (pool ids count in raw units). Events before rangeStart make up
// the starting balance; events at or after rangeEnd contribute nothing. pdas false keys the map by
// borrower wallet (a borrower's loans add up), true by loan address. A mint no event ever touched
// gives an empty array; otherwise one record lists every holder with an event up to rangeEnd.
func (a *loansAPI) historicalHolders(c *call, q apiwire.HoldersRequest) (any, error) {
	if q.Mint == "" {
		return nil, apiwire.BadRequest("mint is required")
	}
	if _, err := solana.PublicKeyFromBase58(q.Mint); err != nil {
		return nil, apiwire.BadRequest("mint %q is not a base58 address", q.Mint)
	}
	if q.RangeEnd <= q.RangeStart {
		return nil, apiwire.BadRequest("rangeEnd %d must be after rangeStart %d", q.RangeEnd, q.RangeStart)
	}
	byHolder, seen, err := a.holderEvents(q)
	if err != nil {
		return nil, err
	}
	if !seen {
		return []apiwire.CollateralHolder{}, nil
	}
	rec := apiwire.CollateralHolder{CollateralMint: q.Mint, RangeStart: q.RangeStart, RangeEnd: q.RangeEnd,
		UserDepositSeconds: map[string]apiwire.Number{}}
	for holder, evs := range byHolder {
		rec.UserDepositSeconds[holder] = apiwire.Number(depositSeconds(evs, int64(q.RangeStart), int64(q.RangeEnd)))
	}
	return []apiwire.CollateralHolder{rec}, nil
}

// holderEvents collects the mint's balance changes per holder up to rangeEnd, and whether any event
// ever touched the mint.
func (a *loansAPI) holderEvents(q apiwire.HoldersRequest) (map[string][]holderEvent, bool, error) {
	scale := units.Pow10(a.w.DecimalsOf(q.Mint))
	out := map[string][]holderEvent{}
	seen := false
	for _, info := range a.w.Loans {
		st, err := a.accts.loan(info)
		if err != nil {
			return nil, false, err
		}
		holder := st.Borrower
		if q.Pdas {
			holder = info.Address.String()
		}
		for _, ev := range st.History {
			delta, ok := eventDelta(ev, q.Mint)
			if !ok {
				continue
			}
			seen = true
			if ev.Time <= int64(q.RangeEnd) {
				out[holder] = append(out[holder], holderEvent{time: ev.Time, delta: delta / scale})
			}
		}
	}
	return out, seen, nil
}

// eventDelta returns an event's raw balance change for mint, and whether it concerns the mint.
func eventDelta(ev state.HistoryEvent, mint string) (float64, bool) {
	switch ev.Kind {
	case state.EventAddCollateral:
		return float64(ev.Amount), ev.AssetIdentifier == mint
	case state.EventRemoveCollateral:
		return -float64(ev.Amount), ev.AssetIdentifier == mint
	case state.EventLiquidate:
		sum, ok := 0.0, false
		for _, t := range ev.Transfers {
			if t.AssetMint == mint && t.ToLiquidator {
				sum, ok = sum+float64(t.Amount), true
			}
		}
		return -sum, ok
	}
	return 0, false
}

// depositSeconds integrates a balance over [start, end): events before start set the opening balance,
// events at or after end count for nothing.
func depositSeconds(evs []holderEvent, start, end int64) float64 {
	slices.SortStableFunc(evs, func(a, b holderEvent) int { return cmp.Compare(a.time, b.time) })
	balance, total, cursor := 0.0, 0.0, start
	for _, ev := range evs {
		switch {
		case ev.time < start:
			balance += ev.delta
		case ev.time < end:
			total += balance * float64(ev.time-cursor)
			balance += ev.delta
			cursor = ev.time
		}
	}
	return total + balance*float64(end-cursor)
}
