package policies

import "github.com/keeper-project/keeper/keeper/clmm"

// The fact structs below are what expressions (`when`, strategy-update rules)
// and alert templates see. Field names in expressions are the snake_case
// names of the expr tags (loan.health, position.in_range). Amounts are in
// the smallest units of their mint, APYs and ratios are fractions (0.085 is
// 8.5 %), times are unix seconds. docs/policies.md documents every field.

// LoanFacts describe one loan.
type LoanFacts struct {
	Address  string `expr:"address"`
	Borrower string `expr:"borrower"`
	// Health is the minimum health over the active ledgers; 1 for a loan
	// without debt, 0 or below when liquidatable.
	Health float64 `expr:"health"`
	// LTV is debt_usd / collateral_usd.
	LTV float64 `expr:"ltv"`
	// LiquidationLTV is the LTV at which the loan's weakest ledger reaches
	// health 0.
	LiquidationLTV     float64 `expr:"liquidation_ltv"`
	DebtUSD            float64 `expr:"debt_usd"`
	CollateralUSD      float64 `expr:"collateral_usd"`
	PrincipalUSD       float64 `expr:"principal_usd"`
	InterestAccruedUSD float64 `expr:"interest_accrued_usd"`
	DailyCarryUSD      float64 `expr:"daily_carry_usd"`
	PnlUSD             float64 `expr:"pnl_usd"`
	// SecondsToEnd is the least time left to an active ledger's end (0 when
	// past, or when no ledger is active).
	SecondsToEnd int64 `expr:"seconds_to_end"`
	IsActive     bool  `expr:"is_active"`
	// RefinanceExpected reports whether every active ledger has a quote
	// able to refinance it (see docs/policies.md).
	RefinanceExpected bool              `expr:"refinance_expected"`
	Ledgers           []LedgerFacts     `expr:"ledgers"`
	Collateral        []CollateralFacts `expr:"collateral"`
}

// LedgerFacts describe one ledger (debt record) of a loan.
type LedgerFacts struct {
	Index               int    `expr:"index"`
	PrincipalMint       string `expr:"principal_mint"`
	PrincipalDue        uint64 `expr:"principal_due"`
	PrincipalRepaid     uint64 `expr:"principal_repaid"`
	InterestOutstanding uint64 `expr:"interest_outstanding"`
	// Debt is the outstanding principal plus interest outstanding plus the
	// interest still to accrue until the ledger's end.
	Debt    uint64  `expr:"debt"`
	DebtUSD float64 `expr:"debt_usd"`
	// CapacityUSD is Σ collateral usd × weight × liquidation threshold.
	CapacityUSD  float64 `expr:"capacity_usd"`
	Health       float64 `expr:"health"`
	EndTime      int64   `expr:"end_time"`
	SecondsToEnd int64   `expr:"seconds_to_end"`
	APY          float64 `expr:"apy"`
	IsActive     bool    `expr:"is_active"`
}

// CollateralFacts describe one collateral entry of a loan.
type CollateralFacts struct {
	Index      int     `expr:"index"`
	Mint       string  `expr:"mint"`
	Identifier string  `expr:"identifier"`
	IsCLMM     bool    `expr:"is_clmm"`
	Amount     uint64  `expr:"amount"`
	USD        float64 `expr:"usd"`
}

// PositionFacts describe one CLMM collateral position of a loan.
type PositionFacts struct {
	Loan            string `expr:"loan"`
	PositionMint    string `expr:"position_mint"`
	Pool            string `expr:"pool"`
	Dex             string `expr:"dex"`
	CollateralIndex int    `expr:"collateral_index"`
	TickLower       int64  `expr:"tick_lower"`
	TickUpper       int64  `expr:"tick_upper"`
	TickCurrent     int64  `expr:"tick_current"`
	TickSpacing     int64  `expr:"tick_spacing"`
	InRange         bool   `expr:"in_range"`
	// DistanceTicks is the distance to the nearer edge: positive inside the
	// range, negative outside it.
	DistanceTicks int64 `expr:"distance_ticks"`
	// DistancePct is DistanceTicks in percent of the range width (at most 50).
	DistancePct float64 `expr:"distance_pct"`
	// OwedKnown reports whether the owed amounts below could be computed
	// (the pool, the position and both boundary tick arrays were read and
	// decoded). When false they are 0 and claim-fees does not act.
	OwedKnown bool `expr:"owed_known"`
	// FeesOwed0 and FeesOwed1 are the fees a claim made now pays, in base
	// units of token 0 and token 1: the stored amount plus what accrued
	// since the position was last touched, computed as the position's
	// program computes it (keeper/clmm).
	FeesOwed0 uint64 `expr:"fees_owed_0"`
	FeesOwed1 uint64 `expr:"fees_owed_1"`
	// FeesOwedUSD is the USD value of the fees owed at the prices of
	// prices: (the runtime reads them for claim-fees policies with
	// min_value_usd, and for expressions that read this fact); unknown when
	// a token with fees owed has no usable price.
	FeesOwedUSD float64 `expr:"fees_owed_usd"`
	// FeesStored0 and FeesStored1 are the fees stored in the position
	// account, which the programs update only when the position is touched.
	FeesStored0 uint64 `expr:"fees_stored_0"`
	FeesStored1 uint64 `expr:"fees_stored_1"`
	// RewardsOwed are the rewards owed per reward slot of the pool, in base
	// units of RewardMints[i], computed like the fees from the reward
	// growth as of the pool's last reward update.
	RewardsOwed [clmm.NumRewards]uint64 `expr:"rewards_owed"`
	// RewardMints are the reward mints per slot; "" for an unused slot.
	RewardMints [clmm.NumRewards]string `expr:"reward_mints"`
	Liquidity   float64                 `expr:"liquidity"`
	// Price is token 1 per token 0 in whole tokens when the decimals are
	// known, in base units otherwise.
	Price float64 `expr:"price"`
}

// WithdrawalFacts describe one queued earn withdrawal request.
type WithdrawalFacts struct {
	Vault     string `expr:"vault"`
	RequestID string `expr:"request_id"`
	Wallet    string `expr:"wallet"`
	Requested uint64 `expr:"requested"`
	Filled    uint64 `expr:"filled"`
	Claimed   uint64 `expr:"claimed"`
	// Claimable is the filled amount.
	Claimable uint64 `expr:"claimable"`
	// State is open, partially_filled, filled, claimed or cancelled.
	State       string `expr:"state"`
	FullyFilled bool   `expr:"fully_filled"`
}

// VaultFacts describe one lending vault, with the spec's metrics.
type VaultFacts struct {
	Address       string `expr:"address"`
	Strategy      string `expr:"strategy"`
	PrincipalMint string `expr:"principal_mint"`
	// TVL is tokenBalance + externalYieldAmount + currentDeployedAmount +
	// outstandingInterestAmount, in principal smallest units.
	TVL        float64 `expr:"tvl"`
	LendingAPY float64 `expr:"lending_apy"`
	RewardsAPY float64 `expr:"rewards_apy"`
	TotalAPY   float64 `expr:"total_apy"`
	// Utilisation is currentDeployedAmount / tvl.
	Utilisation float64 `expr:"utilisation"`
	// Idle is the strategy's tokenBalance.
	Idle uint64 `expr:"idle"`
	// IdleAboveBuffer is idle minus the policy's buffer param, or 0.
	IdleAboveBuffer     uint64 `expr:"idle_above_buffer"`
	OriginationsEnabled bool   `expr:"originations_enabled"`
}

// StrategyFacts describe the strategy behind a vault.
type StrategyFacts struct {
	Address             string      `expr:"address"`
	Authority           string      `expr:"authority"`
	Idle                uint64      `expr:"idle"`
	Deployed            uint64      `expr:"deployed"`
	External            uint64      `expr:"external"`
	OutstandingInterest uint64      `expr:"outstanding_interest"`
	OriginationsEnabled bool        `expr:"originations_enabled"`
	Terms               []TermFacts `expr:"terms"`
}

// TermFacts are a strategy's terms for one collateral.
type TermFacts struct {
	Collateral        string  `expr:"collateral"`
	MaxAllocationPct  float64 `expr:"max_allocation_pct"`
	CurrentAllocation uint64  `expr:"current_allocation"`
	// APYs maps a duration ("7 days") to its APY.
	APYs map[string]float64 `expr:"apys"`
}

// QuoteFacts describe the best quote for one collateral.
type QuoteFacts struct {
	Collateral    string  `expr:"collateral"`
	PrincipalMint string  `expr:"principal_mint"`
	Duration      string  `expr:"duration"`
	APY           float64 `expr:"apy"`
	LTV           float64 `expr:"ltv"`
	LQT           float64 `expr:"lqt"`
	Amount        uint64  `expr:"amount"`
	Strategy      string  `expr:"strategy"`
}
