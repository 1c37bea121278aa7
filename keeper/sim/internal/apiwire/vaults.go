package apiwire

// CollateralTerm is a strategy's current terms for one collateral (assumed shape): duration-map key →
// APY in centi-basis points, the allocation cap as the same decimal string E1's maxAllocationPct takes,
// and the principal currently lent against this collateral (smallest units).
type CollateralTerm struct {
	AssetIdentifier   string          `json:"assetIdentifier"`
	DurationsAndApys  map[string]CBPS `json:"durationsAndApys"`
	MaxAllocationPct  string          `json:"maxAllocationPct"`
	CurrentAllocation Amount          `json:"currentAllocation"`
}

// ExternalYieldInfo describes a vault's external yield source.
type ExternalYieldInfo struct {
	Apy Number `json:"apy"`
}

// RewardSchedule is one token emission schedule of a vault. EmissionsPerSecond is scaled by 1e9: the
// reward token's smallest units per second are EmissionsPerSecond / 1e9.
type RewardSchedule struct {
	RewardMint         string   `json:"rewardMint"`
	RewardStartTime    UnixTime `json:"rewardStartTime"`
	RewardEndTime      UnixTime `json:"rewardEndTime"`
	EmissionsPerSecond Number   `json:"emissionsPerSecond"`
}

// StrategyState is vaultStrategy.strategy. Amounts are in the principal's smallest units;
// InterestPerSecond is order-book interest in principal smallest units per second.
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

// Vault is one vault record of the listing. VaultStrategy.Strategy, ExternalYieldInfo and
// VaultRewardsSchedule are the fields the spec's metric rules use; Address, PrincipalMint, the
// strategy's Address, Authority, OriginationsEnabled and CollateralTerms are assumptions a vault
// operator's upkeep needs (docs/assumptions.md).
type Vault struct {
	Address              string             `json:"address"`
	PrincipalMint        string             `json:"principalMint"`
	VaultStrategy        VaultStrategy      `json:"vaultStrategy"`
	ExternalYieldInfo    *ExternalYieldInfo `json:"externalYieldInfo,omitempty"`
	VaultRewardsSchedule []RewardSchedule   `json:"vaultRewardsSchedule,omitempty"`
}

// VaultStrategy is a vault's vaultStrategy object.
type VaultStrategy struct {
	Strategy        StrategyState    `json:"strategy"`
	CollateralTerms []CollateralTerm `json:"collateralTerms,omitempty"`
}

// VaultsPage is the E11 response. Its shape is not shown by the spec: the simulator answers an object
// holding the vault records in items, with the shared pageInfo.
type VaultsPage struct {
	Items    []Vault   `json:"items"`
	PageInfo *PageInfo `json:"pageInfo,omitempty"`
}

// VaultsQuery is the body of E11 (POST markets/lending_vaults/info). Page 0 is the first page.
type VaultsQuery struct {
	Page           *int `json:"page,omitempty"`
	PageSize       *int `json:"pageSize,omitempty"`
	IncludeRewards bool `json:"includeRewards,omitempty"`
}

// Loop is one loop record. CollateralDeposited (total assets deposited, decimal-scaled), WAvgApy (the
// size-weighted APY across active positions, a fraction) and MaxApy are the fields the spec names;
// Identifier, PrincipalMint, CollateralMint and Tags are assumed (docs/assumptions.md). Display WAvgApy:
// MaxApy can be empty or unrepresentative when borrow liquidity is exhausted.
type Loop struct {
	Identifier          string   `json:"identifier"`
	PrincipalMint       string   `json:"principalMint"`
	CollateralMint      string   `json:"collateralMint"`
	Tags                []string `json:"tags,omitempty"`
	CollateralDeposited Number   `json:"collateralDeposited"`
	WAvgApy             Number   `json:"wAvgApy"`
	MaxApy              *Number  `json:"maxApy,omitempty"`
}

// LoopsQuery is the body of E12 (POST markets/loop/info). Identifiers are slugs or
// "{PRINCIPAL_MINT}-{COLLATERAL_MINT}" strings; the two filters can be used separately.
type LoopsQuery struct {
	Identifiers []string `json:"identifiers,omitempty"`
	Tags        []string `json:"tags,omitempty"`
}

// SecondsPerYear is the spec's SECONDS_PER_YEAR for the metric formulas.
const SecondsPerYear = 31_536_000
