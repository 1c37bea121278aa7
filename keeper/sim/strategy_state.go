package sim

import (
	"fmt"
	"slices"

	"github.com/keeper-project/keeper/keeper/market"
)

// Strategy accounts are owned by the market program: discriminator sha256("account:SimStrategy")[:8]
// followed by the JSON of strategyState. The strategy's idle principal is not in it: it is the token
// balance of the strategy's associated token account.
var strategyDisc = [8]byte{0x72, 0xb1, 0x22, 0x90, 0xb8, 0xe9, 0xb1, 0x99} // clmm.Discriminator("SimStrategy"), written out: see lazy

// strategyState is the on-chain state of one lending strategy.
type strategyState struct {
	Authority           string      `json:"authority"`
	PrincipalMint       string      `json:"principalMint"`
	OriginationsEnabled bool        `json:"originationsEnabled"`
	InterestFee         int64       `json:"interestFee"`
	LiquidityBuffer     int64       `json:"liquidityBuffer"`
	OriginationCap      int64       `json:"originationCap"`
	OriginationFee      int64       `json:"originationFee"`
	PrincipalFee        int64       `json:"principalFee"`
	ExternalYieldSource int32       `json:"externalYieldSource"`
	ExternalYieldAmount uint64      `json:"externalYieldAmount"`
	Terms               []termState `json:"terms"`
	WriteVersion        int64       `json:"writeVersion"`
	// PendingUpdate and NextStep track a split update under way: its id
	// and the step that may apply next.
	PendingUpdate string `json:"pendingUpdate,omitempty"`
	NextStep      int    `json:"nextStep,omitempty"`
}

// termState is a strategy's terms for one collateral: duration-map key → APY in cBPS, the allocation
// cap (percent, as a decimal string), LTV and liquidation threshold in cBPS, and asset data the
// simulator stores without interpreting.
type termState struct {
	AssetIdentifier  string            `json:"assetIdentifier"`
	Apys             map[string]int64  `json:"apys"`
	MaxAllocationPct string            `json:"maxAllocationPct"`
	Ltv              int64             `json:"ltv"`
	Lqt              int64             `json:"lqt"`
	Meta             map[string]string `json:"meta,omitempty"`
}

// encodeStrategy returns the account data of s.
func encodeStrategy(s *strategyState) ([]byte, error) {
	return encodeJSONAccount(strategyDisc, s)
}

// decodeStrategy parses strategy account data.
func decodeStrategy(data []byte) (*strategyState, error) {
	var s strategyState
	if err := decodeJSONAccount(strategyDisc, "strategy", data, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// term returns the terms of a collateral.
func (s *strategyState) term(asset string) (*termState, bool) {
	for i := range s.Terms {
		if s.Terms[i].AssetIdentifier == asset {
			return &s.Terms[i], true
		}
	}
	return nil, false
}

// apply applies one strategy-update item.
func (s *strategyState) apply(it termItem) error {
	if it.Kind == itemSetParam {
		return s.setParam(it.Param, it.Value)
	}
	asset := it.Asset.String()
	if it.Kind == itemAddCollateral {
		if _, ok := s.term(asset); !ok {
			s.Terms = append(s.Terms, termState{AssetIdentifier: asset, Apys: map[string]int64{}, MaxAllocationPct: "100"})
		}
		return nil
	}
	t, ok := s.term(asset)
	if !ok {
		return fmt.Errorf("collateral %s is not in the strategy's terms", asset)
	}
	return s.applyToTerm(t, it)
}

// applyToTerm applies an item that changes an existing term.
func (s *strategyState) applyToTerm(t *termState, it termItem) error {
	key := market.StrategyDuration{DurationType: market.DurationType(it.DurationType), Duration: int32(it.Duration)}.Key()
	switch it.Kind {
	case itemSetAPY:
		if t.Apys == nil {
			t.Apys = map[string]int64{}
		}
		t.Apys[key] = it.Value
	case itemRemoveDuration:
		delete(t.Apys, key)
	case itemRemoveCollateral:
		s.Terms = slices.DeleteFunc(s.Terms, func(x termState) bool { return x.AssetIdentifier == t.AssetIdentifier })
	case itemSetAllocation:
		t.MaxAllocationPct = it.Text
	case itemSetLTV:
		t.Ltv = it.Value
	case itemSetLQT:
		t.Lqt = it.Value
	case itemSetMeta:
		if t.Meta == nil {
			t.Meta = map[string]string{}
		}
		t.Meta[it.Key] = it.Text
	default:
		return fmt.Errorf("unknown strategy-update item %d", it.Kind)
	}
	return nil
}

// setParam changes one strategy parameter.
func (s *strategyState) setParam(p uint8, v int64) error {
	switch p {
	case paramInterestFee:
		s.InterestFee = v
	case paramLiquidityBuffer:
		s.LiquidityBuffer = v
	case paramOriginationCap:
		s.OriginationCap = v
	case paramOriginationFee:
		s.OriginationFee = v
	case paramPrincipalFee:
		s.PrincipalFee = v
	case paramOriginationsEnabled:
		s.OriginationsEnabled = v != 0
	case paramExternalYieldSource:
		s.ExternalYieldSource = int32(v)
	default:
		return fmt.Errorf("unknown strategy parameter %d", p)
	}
	return nil
}
