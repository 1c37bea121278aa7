package stratupdate

import (
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
)

// itemList collects strategy-update items and the collaterals the update knows about.
type itemList struct {
	items []instr.TermItem
	known map[string]bool // collaterals in the terms or added by this update
}

// UpdateItems validates an E1 request against the strategy and turns it into items, in this order:
// additions, APY and asset-data updates, allocation caps, removals, parameters.
func Items(q apiwire.StrategyUpdateRequest, st *state.Strategy) ([]instr.TermItem, error) {
	l := &itemList{known: map[string]bool{}}
	for _, t := range st.Terms {
		l.known[t.AssetIdentifier] = true
	}
	if ct := q.CollateralTerms; ct != nil {
		for _, step := range []func(*apiwire.CollateralTerms) error{l.adds, l.updates, l.allocations, l.removals} {
			if err := step(ct); err != nil {
				return nil, err
			}
		}
	}
	if q.UpdateParams != nil {
		l.params(*q.UpdateParams)
	}
	return l.items, nil
}

// asset parses a collateral identifier that must already be known, naming where it came from.
func (l *itemList) asset(where, id string, mustKnow bool) (solana.PublicKey, error) {
	k, err := solana.PublicKeyFromBase58(id)
	if err != nil {
		return k, apiwire.BadRequest("%s: %q is not a base58 asset identifier", where, id)
	}
	if mustKnow && !l.known[id] {
		return k, apiwire.BadRequest("%s: collateral %s is not in the strategy's terms", where, id)
	}
	return k, nil
}

// eachAsset calls f, in identifier order, for every entry v of m, the collateralTerms member field,
// with where naming the entry, id its asset identifier and k that asset parsed; mustKnow requires the
// asset in the strategy's terms.
func eachAsset[V any](l *itemList, field string, m map[string]V, mustKnow bool, f func(where, id string, k solana.PublicKey, v V) error) error {
	for _, id := range slices.Sorted(maps.Keys(m)) {
		where := "collateralTerms." + field + "[" + id + "]"
		k, err := l.asset(where, id, mustKnow)
		if err != nil {
			return err
		}
		if err := f(where, id, k, m[id]); err != nil {
			return err
		}
	}
	return nil
}

// adds turns addCollateral into items.
func (l *itemList) adds(ct *apiwire.CollateralTerms) error {
	return eachAsset(l, "addCollateral", ct.AddCollateral, false, func(where, id string, k solana.PublicKey, ac apiwire.AddCollateral) error {
		if ac.DurationsAndApys == nil {
			return apiwire.BadRequest("%s.durationsAndApys is required", where)
		}
		l.known[id] = true
		l.items = append(l.items, instr.TermItem{Kind: instr.ItemAddCollateral, Asset: k})
		if err := l.apys(where+".durationsAndApys", k, ac.DurationsAndApys); err != nil {
			return err
		}
		if ac.ExternalMarketInformationAddress != nil {
			l.items = append(l.items, instr.TermItem{Kind: instr.ItemSetMeta, Asset: k, Key: "externalMarketInformationAddress",
				Text: *ac.ExternalMarketInformationAddress})
		}
		if ac.MarketInformation != nil {
			if err := l.assetData(where+".marketInformation", k, *ac.MarketInformation); err != nil {
				return err
			}
		}
		return nil
	})
}

// apys turns a duration → APY map into setAPY items.
func (l *itemList) apys(where string, k solana.PublicKey, m map[string]string) error {
	for _, key := range slices.Sorted(maps.Keys(m)) {
		d, err := apiwire.ParseDurationKey(key)
		if err != nil {
			return apiwire.BadRequest("%s: key %q: %v", where, key, err)
		}
		if d.DurationType > apiwire.DurationYears {
			return apiwire.BadRequest("%s: key %q: durationType %d is not supported (0-4)", where, key, d.DurationType)
		}
		apy, err := apiwire.ParseCBPS(m[key])
		if err != nil || apy < 0 {
			return apiwire.BadRequest("%s[%s]: %q is not a non-negative APY in centi-basis points", where, key, m[key])
		}
		l.items = append(l.items, instr.TermItem{Kind: instr.ItemSetAPY, Asset: k, DurationType: uint8(d.DurationType),
			Duration: uint32(d.Duration), Value: int64(apy)})
	}
	return nil
}

// assetData turns an asset-data update into items.
func (l *itemList) assetData(where string, k solana.PublicKey, a apiwire.ParsedUpdateAssetData) error {
	if a.AssetIdentifier != "" && a.AssetIdentifier != k.String() {
		return apiwire.BadRequest("%s.assetIdentifier %s differs from the collateral %s", where, a.AssetIdentifier, k)
	}
	for _, r := range []struct {
		name string
		v    *int32
		kind uint8
	}{{"ltv", a.Ltv, instr.ItemSetLTV}, {"liquidationThreshold", a.LiquidationThreshold, instr.ItemSetLQT}} {
		if r.v == nil {
			continue
		}
		if *r.v > int32(apiwire.CBPSOne) {
			return apiwire.BadRequest("%s.%s %d exceeds 1000000 (100 %%)", where, r.name, *r.v)
		}
		l.items = append(l.items, instr.TermItem{Kind: r.kind, Asset: k, Value: int64(*r.v)})
	}
	if a.MaxCollateralAllocationPct != nil {
		if _, err := units.ParsePercent(*a.MaxCollateralAllocationPct); err != nil {
			return apiwire.BadRequest("%s.maxCollateralAllocationPct: %v", where, err)
		}
		l.items = append(l.items, instr.TermItem{Kind: instr.ItemSetAllocation, Asset: k, Text: *a.MaxCollateralAllocationPct})
	}
	l.metaItems(k, a)
	if a.RemoveCollateral != nil && *a.RemoveCollateral {
		l.items = append(l.items, instr.TermItem{Kind: instr.ItemRemoveCollateral, Asset: k})
	}
	return nil
}

// metaItems stores the asset-data fields the simulator does not interpret.
func (l *itemList) metaItems(k solana.PublicKey, a apiwire.ParsedUpdateAssetData) {
	add := func(key, v string) {
		l.items = append(l.items, instr.TermItem{Kind: instr.ItemSetMeta, Asset: k, Key: key, Text: v})
	}
	if a.MaxAge != nil {
		add("maxAge", strconv.Itoa(int(*a.MaxAge)))
	}
	if a.MaxUncertainty != nil {
		add("maxUncertainty", strconv.Itoa(int(*a.MaxUncertainty)))
	}
	if a.OracleAccount != nil {
		add("oracleAccount", *a.OracleAccount)
	}
	if a.OracleType != nil {
		add("oracleType", strconv.Itoa(int(*a.OracleType)))
	}
	if a.QuoteMint != nil {
		add("quoteMint", *a.QuoteMint)
	}
}

// updates turns updateCollateral into items.
func (l *itemList) updates(ct *apiwire.CollateralTerms) error {
	return eachAsset(l, "updateCollateral", ct.UpdateCollateral, true, func(where, id string, k solana.PublicKey, u apiwire.CollateralParamsUpdate) error {
		if err := l.apys(where+".apyUpdate", k, u.ApyUpdate); err != nil {
			return err
		}
		if u.LtvUpdate != nil {
			if err := l.assetData(where+".ltvUpdate", k, *u.LtvUpdate); err != nil {
				return err
			}
		}
		return nil
	})
}

// allocations turns updateAssetAllocation into items.
func (l *itemList) allocations(ct *apiwire.CollateralTerms) error {
	for i, a := range ct.UpdateAssetAllocation {
		where := "collateralTerms.updateAssetAllocation[" + strconv.Itoa(i) + "]"
		if a.AssetIdentifier == "" || a.MaxAllocationPct == "" {
			return apiwire.BadRequest("%s: assetIdentifier and maxAllocationPct are required", where)
		}
		k, err := l.asset(where, a.AssetIdentifier, true)
		if err != nil {
			return err
		}
		if _, err := units.ParsePercent(a.MaxAllocationPct); err != nil {
			return apiwire.BadRequest("%s.maxAllocationPct: %v", where, err)
		}
		l.items = append(l.items, instr.TermItem{Kind: instr.ItemSetAllocation, Asset: k, Text: a.MaxAllocationPct})
	}
	return nil
}

// removals turns removeCollateral into items.
func (l *itemList) removals(ct *apiwire.CollateralTerms) error {
	return eachAsset(l, "removeCollateral", ct.RemoveCollateral, true, func(where, id string, k solana.PublicKey, rc apiwire.RemoveCollateral) error {
		if rc.Durations == nil {
			return apiwire.BadRequest("%s.durations is required", where)
		}
		for j, d := range rc.Durations {
			if d.DurationType > apiwire.DurationYears || d.Duration < 0 || int64(d.Duration) > math.MaxUint32 {
				return apiwire.BadRequest("%s.durations[%d]: %s is not a valid duration", where, j, d)
			}
			l.items = append(l.items, instr.TermItem{Kind: instr.ItemRemoveDuration, Asset: k, DurationType: uint8(d.DurationType), Duration: uint32(d.Duration)})
		}
		if rc.RemoveFromMarketInformation {
			l.items = append(l.items, instr.TermItem{Kind: instr.ItemRemoveCollateral, Asset: k})
		}
		return nil
	})
}

// params turns updateParams into items.
func (l *itemList) params(p apiwire.UpdateParams) {
	add := func(param uint8, v int64) {
		l.items = append(l.items, instr.TermItem{Kind: instr.ItemSetParam, Param: param, Value: v})
	}
	for _, f := range []struct {
		p uint8
		v *int64
	}{{instr.ParamInterestFee, p.InterestFee}, {instr.ParamLiquidityBuffer, p.LiquidityBuffer}, {instr.ParamOriginationCap, p.OriginationCap},
		{instr.ParamOriginationFee, p.OriginationFee}, {instr.ParamPrincipalFee, p.PrincipalFee}} {
		if f.v != nil {
			add(f.p, *f.v)
		}
	}
	if p.OriginationsEnabled != nil {
		v := int64(0)
		if *p.OriginationsEnabled {
			v = 1
		}
		add(instr.ParamOriginationsEnabled, v)
	}
	if p.ExternalYieldSource != nil {
		add(instr.ParamExternalYieldSource, int64(p.ExternalYieldSource.NewExternalYieldSource))
	}
}
