package policytest

import "gopkg.in/yaml.v3"

// DefaultWallet is the wallet of a test that names none.
const DefaultWallet = "KeeperTestWa11et111111111111111111111111111"

// node keeps a YAML node undecoded (strictyaml does not walk into it).
type node struct{ n *yaml.Node }

// UnmarshalYAML stores the node.
func (r *node) UnmarshalYAML(n *yaml.Node) error {
	r.n = n
	return nil
}

type fileYAML struct {
	PolicyFiles []string   `yaml:"policy_files"`
	Tests       []testYAML `yaml:"tests"`
}

type testYAML struct {
	Name string `yaml:"name"`
	// Policies, when set, are the only policies of the files the test
	// evaluates.
	Policies     []string                     `yaml:"policies"`
	Now          string                       `yaml:"now"`
	Observations observationsYAML             `yaml:"observations"`
	History      map[string]historyYAML       `yaml:"history"`
	PendingSince map[string]map[string]string `yaml:"pending_since"`
	Expect       *[]expectYAML                `yaml:"expect"`
	Skipped      *[]skipYAML                  `yaml:"skipped"`
}

type observationsYAML struct {
	Wallet       string               `yaml:"wallet"`
	SnapshotTime string               `yaml:"snapshot_time"`
	Tokens       map[string]tokenYAML `yaml:"tokens"`
	Loans        []node               `yaml:"loans"`
	Positions    []positionYAML       `yaml:"positions"`
	Withdrawals  []node               `yaml:"withdrawals"`
	// EarnPositions are earn positions in the wire shape, whose open
	// withdrawal requests say which queued requests may be claimed.
	EarnPositions []node      `yaml:"earn_positions"`
	Vaults        []node      `yaml:"vaults"`
	Quotes        []quoteYAML `yaml:"quotes"`
	Loops         []loopYAML  `yaml:"loops"`
}

type tokenYAML struct {
	Symbol   string  `yaml:"symbol"`
	Decimals uint8   `yaml:"decimals"`
	PriceUSD float64 `yaml:"price_usd"`
}

// positionYAML is the simplified shape of a CLMM collateral position: what
// keeper reads from the position and pool accounts, flattened.
type positionYAML struct {
	Loan            string `yaml:"loan"`
	CollateralIndex int    `yaml:"collateral_index"`
	Dex             string `yaml:"dex"`
	PositionMint    string `yaml:"position_mint"`
	Pool            string `yaml:"pool"`
	Mint0           string `yaml:"mint_0"`
	Mint1           string `yaml:"mint_1"`
	Decimals0       *uint8 `yaml:"decimals_0"`
	Decimals1       *uint8 `yaml:"decimals_1"`
	TickLower       int32  `yaml:"tick_lower"`
	TickUpper       int32  `yaml:"tick_upper"`
	TickCurrent     int32  `yaml:"tick_current"`
	TickSpacing     uint16 `yaml:"tick_spacing"`
	Liquidity       uint64 `yaml:"liquidity"`
	FeesOwed0       uint64 `yaml:"fees_owed_0"`
	FeesOwed1       uint64 `yaml:"fees_owed_1"`
	// FeesStored0 and FeesStored1 default to the fees owed (a position
	// just touched); RewardsOwed holds up to 3 reward slots.
	FeesStored0 *uint64  `yaml:"fees_stored_0"`
	FeesStored1 *uint64  `yaml:"fees_stored_1"`
	RewardsOwed []uint64 `yaml:"rewards_owed"`
}

type quoteYAML struct {
	PrincipalMint string `yaml:"principal_mint"`
	Duration      string `yaml:"duration"`
	Quote         node   `yaml:"quote"`
}

// loopYAML is one loop record (E12, wire shape) with the pair it was asked
// for.
type loopYAML struct {
	PrincipalMint  string `yaml:"principal_mint"`
	CollateralMint string `yaml:"collateral_mint"`
	Loop           node   `yaml:"loop"`
}

type historyYAML struct {
	Targets        map[string]targetYAML `yaml:"targets"`
	SpentToday     map[string]uint64     `yaml:"spent_today"`
	FeesToday      uint64                `yaml:"fees_today"`
	ActionsThisRun int                   `yaml:"actions_this_run"`
}

type targetYAML struct {
	LastAction string `yaml:"last_action"`
	InFlight   bool   `yaml:"in_flight"`
}

type expectYAML struct {
	Policy         string `yaml:"policy"`
	Target         string `yaml:"target"`
	Kind           string `yaml:"kind"`
	Request        node   `yaml:"request"`
	ReasonContains string `yaml:"reason_contains"`
}

type skipYAML struct {
	Policy string `yaml:"policy"`
	Target string `yaml:"target"`
	Reason string `yaml:"reason"`
}
