package market

import (
	"bytes"
	"fmt"

	json "github.com/go-json-experiment/json/v1"
)

// VaultsQuery is the body of E11 (POST markets/lending_vaults/info). Page 0 is the first page.
type VaultsQuery struct {
	Page           *int `json:"page,omitempty"`
	PageSize       *int `json:"pageSize,omitempty"`
	IncludeRewards bool `json:"includeRewards,omitempty"`
}

// VaultsPage is the E11 response. Its shape is not shown by the spec: decoding accepts a bare array of
// vault records or an object holding them in items (or vaults) with an optional pageInfo.
type VaultsPage struct {
	Items    []Vault   `json:"items"`
	PageInfo *PageInfo `json:"pageInfo,omitempty"`
}

// Vault is one vault record of the listing. VaultStrategy.Strategy, ExternalYieldInfo and
// VaultRewardsSchedule are the fields the spec's metric rules use; Address, PrincipalMint, the
// strategy's Address, Authority, OriginationsEnabled and CollateralTerms are assumptions a vault
// operator's upkeep needs (docs/assumptions.md). Raw holds the record's JSON as received, so fields
// this type does not model stay reachable.
type Vault struct {
	Address              string             `json:"address"`
	PrincipalMint        string             `json:"principalMint"`
	VaultStrategy        VaultStrategy      `json:"vaultStrategy"`
	ExternalYieldInfo    *ExternalYieldInfo `json:"externalYieldInfo,omitempty"`
	VaultRewardsSchedule []RewardSchedule   `json:"vaultRewardsSchedule,omitempty"`
	Raw                  json.RawMessage    `json:"-"`
}

// VaultStrategy is a vault's vaultStrategy object.
type VaultStrategy struct {
	Strategy        StrategyState    `json:"strategy"`
	CollateralTerms []CollateralTerm `json:"collateralTerms,omitempty"`
}

// StrategyState is vaultStrategy.strategy. Amounts are in the principal's smallest units and may
// arrive as strings; InterestPerSecond is order-book interest in principal smallest units per second.
type StrategyState struct {
	Address                   string `json:"address"`
	Authority                 string `json:"authority"`
	TokenBalance              Amount `json:"tokenBalance"`
	ExternalYieldAmount       Amount `json:"externalYieldAmount"`
	CurrentDeployedAmount     Amount `json:"currentDeployedAmount"`
	OutstandingInterestAmount Amount `json:"outstandingInterestAmount"`
	InterestPerSecond         Number `json:"interestPerSecond"`
	OriginationsEnabled       bool   `json:"originationsEnabled"`
}

// CollateralTerm is a strategy's current terms for one collateral (assumed shape): duration-map key →
// APY in centi-basis points, the allocation cap as the same decimal string E1's maxAllocationPct takes,
// and the principal currently lent against this collateral (smallest units).
type CollateralTerm struct {
	AssetIdentifier   string          `json:"assetIdentifier"`
	DurationsAndApys  map[string]CBPS `json:"durationsAndApys"`
	MaxAllocationPct  string          `json:"maxAllocationPct"`
	CurrentAllocation Amount          `json:"currentAllocation"`
}

// APYs returns the term's APYs keyed by parsed duration.
func (t CollateralTerm) APYs() (map[StrategyDuration]CBPS, error) {
	out := make(map[StrategyDuration]CBPS, len(t.DurationsAndApys))
	for k, v := range t.DurationsAndApys {
		d, err := ParseDurationKey(k)
		if err != nil {
			return nil, err
		}
		out[d] = v
	}
	return out, nil
}

// Term returns the vault strategy's terms for a collateral assetIdentifier.
func (v Vault) Term(assetIdentifier string) (CollateralTerm, bool) {
	for _, t := range v.VaultStrategy.CollateralTerms {
		if t.AssetIdentifier == assetIdentifier {
			return t, true
		}
	}
	return CollateralTerm{}, false
}

// ExternalYieldInfo describes a vault's external yield source.
type ExternalYieldInfo struct {
	Apy ExternalAPY `json:"apy"`
}

// RewardSchedule is one token emission schedule of a vault. EmissionsPerSecond is scaled by 1e9: the
// reward token's smallest units per second are EmissionsPerSecond / 1e9.
type RewardSchedule struct {
	RewardMint         string   `json:"rewardMint"`
	RewardStartTime    UnixTime `json:"rewardStartTime"`
	RewardEndTime      UnixTime `json:"rewardEndTime"`
	EmissionsPerSecond Number   `json:"emissionsPerSecond"`
}

// UnmarshalJSON decodes a vault record and keeps its raw JSON, without surrounding space, in Raw.
func (v *Vault) UnmarshalJSON(b []byte) error {
	type plain Vault
	if err := decodeKeepingRaw(b, (*plain)(v), func(p *plain) *json.RawMessage { return &p.Raw }); err != nil {
		return fmt.Errorf("vault record: %w", err)
	}
	v.Raw = bytes.TrimSpace(v.Raw)
	return nil
}

// decodeKeepingRaw decodes b into a new P, keeps a copy of b in the member raw points to, and stores
// the result in dst. dst is left as it was when b does not decode.
func decodeKeepingRaw[P any](b []byte, dst *P, raw func(*P) *json.RawMessage) error {
	var p P
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*raw(&p) = append(json.RawMessage(nil), b...)
	*dst = p
	return nil
}

// UnmarshalJSON decodes a bare array of vault records or an object holding them in items or vaults.
func (p *VaultsPage) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if isNull(b) {
		return errNullAnswer
	}
	if len(b) > 0 && b[0] == '[' {
		var items StrictList[Vault]
		if err := json.Unmarshal(b, &items); err != nil {
			return fmt.Errorf("vault listing array: %w", err)
		}
		*p = VaultsPage{Items: items}
		return nil
	}
	type plain VaultsPage
	var w struct {
		plain
		Vaults []Vault `json:"vaults"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("vault listing: %w", err)
	}
	if w.Items == nil {
		w.Items = w.Vaults
	}
	*p = VaultsPage(w.plain)
	return nil
}

// checkAnswer requires the list of vaults (possibly empty) and an address on every vault.
func (p *VaultsPage) checkAnswer() error {
	if err := requireMember("items", p.Items != nil); err != nil {
		return err
	}
	return requireEach("items", p.Items, "address", func(v *Vault) string { return v.Address })
}
