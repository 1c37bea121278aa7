package state

import (
	"fmt"
	"slices"

	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
)

// Strategy accounts are owned by the market program: discriminator sha256("account:SimStrategy")[:8]
// followed by the JSON of Strategy. The strategy's idle principal is not in it: it is the token
// balance of the strategy's associated token account.
var strategyDisc = [8]byte{0x72, 0xb1, 0x22, 0x90, 0xb8, 0xe9, 0xb1, 0x99} // clmm.Discriminator("SimStrategy"), written out: see lazy

// Strategy is the on-chain state of one lending strategy.
type Strategy struct {
	Authority           string `json:"authority"`
	PrincipalMint       string `json:"principalMint"`
	OriginationsEnabled bool   `json:"originationsEnabled"`
	InterestFee         int64  `json:"interestFee"`
	LiquidityBuffer     int64  `json:"liquidityBuffer"`
	OriginationCap      int64  `json:"originationCap"`
	OriginationFee      int64  `json:"originationFee"`
	PrincipalFee        int64  `json:"principalFee"`
	ExternalYieldSource int32  `json:"externalYieldSource"`
	ExternalYieldAmount uint64 `json:"externalYieldAmount"`
	Terms               []Term `json:"terms"`
	WriteVersion        int64  `json:"writeVersion"`
	// PendingUpdate and NextStep track a split update under way: its id
	// and the step that may apply next.
	PendingUpdate string `json:"pendingUpdate,omitempty"`
	NextStep      int    `json:"nextStep,omitempty"`
}

// Term is a strategy's terms for one collateral: duration-map key → APY in cBPS, the allocation
// cap (percent, as a decimal string), LTV and liquidation threshold in cBPS, and asset data the
// simulator stores without interpreting.
type Term struct {
	AssetIdentifier  string            `json:"assetIdentifier"`
	Apys             map[string]int64  `json:"apys"`
	MaxAllocationPct string            `json:"maxAllocationPct"`
	Ltv              int64             `json:"ltv"`
	Lqt              int64             `json:"lqt"`
	Meta             map[string]string `json:"meta,omitempty"`
}

// EncodeStrategy returns the account data of s.
func EncodeStrategy(s *Strategy) ([]byte, error) {
	return encodeJSONAccount(strategyDisc, s)
}

// DecodeStrategy parses strategy account data.
func DecodeStrategy(data []byte) (*Strategy, error) {
	return decodeJSONAccount[Strategy](strategyDisc, "strategy", data)
}

// Term returns the terms of a collateral.
func (s *Strategy) Term(asset string) (*Term, bool) {
	for i := range s.Terms {
		if s.Terms[i].AssetIdentifier == asset {
			return &s.Terms[i], true
		}
	}
	return nil, false
}

// Apply applies one strategy-update item.
func (s *Strategy) Apply(it instr.TermItem) error {
	if it.Kind == instr.ItemSetParam {
		return s.setParam(it.Param, it.Value)
	}
	asset := it.Asset.String()
	if it.Kind == instr.ItemAddCollateral {
		if _, ok := s.Term(asset); !ok {
			s.Terms = append(s.Terms, Term{AssetIdentifier: asset, Apys: map[string]int64{}, MaxAllocationPct: "100"})
		}
		return nil
	}
	t, ok := s.Term(asset)
	if !ok {
		return fmt.Errorf("collateral %s is not in the strategy's terms", asset)
	}
	return s.applyToTerm(t, it)
}

// applyToTerm applies an item that changes an existing term.
func (s *Strategy) applyToTerm(t *Term, it instr.TermItem) error {
	key := instr.Term{DurationType: int32(it.DurationType), Duration: int32(it.Duration)}.Key()
	switch it.Kind {
	case instr.ItemSetAPY:
		if t.Apys == nil {
			t.Apys = map[string]int64{}
		}
		t.Apys[key] = it.Value
	case instr.ItemRemoveDuration:
		delete(t.Apys, key)
	case instr.ItemRemoveCollateral:
		s.Terms = slices.DeleteFunc(s.Terms, func(x Term) bool { return x.AssetIdentifier == t.AssetIdentifier })
	case instr.ItemSetAllocation:
		t.MaxAllocationPct = it.Text
	case instr.ItemSetLTV:
		t.Ltv = it.Value
	case instr.ItemSetLQT:
		t.Lqt = it.Value
	case instr.ItemSetMeta:
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
func (s *Strategy) setParam(p uint8, v int64) error {
	switch p {
	case instr.ParamInterestFee:
		s.InterestFee = v
	case instr.ParamLiquidityBuffer:
		s.LiquidityBuffer = v
	case instr.ParamOriginationCap:
		s.OriginationCap = v
	case instr.ParamOriginationFee:
		s.OriginationFee = v
	case instr.ParamPrincipalFee:
		s.PrincipalFee = v
	case instr.ParamOriginationsEnabled:
		s.OriginationsEnabled = v != 0
	case instr.ParamExternalYieldSource:
		s.ExternalYieldSource = int32(v)
	default:
		return fmt.Errorf("unknown strategy parameter %d", p)
	}
	return nil
}
