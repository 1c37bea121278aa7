package policies

import "github.com/keeper-project/keeper/keeper/clmm"

// The fact structs below are what expressions (`when`, strategy-update rules)
// and alert templates see. Field names in expressions are the snake_case
// names of the expr tags (loan.health, position.in_range). Amounts are in
// the smallest units of their mint, APYs and ratios are fractions (0.085 is
// 8.5 %), times are unix seconds. docs/policies.md documents every field.

// LoanFacts describe one loan.
type LoanFacts struct {
	Address  string `expr:"address" json:"address"`
	Borrower string `expr:"borrower" json:"borrower"`
	// Health is the minimum health over the active ledgers; 1 for a loan
	// without debt, 0 or below when liquidatable.
	Health float64 `expr:"health" json:"health"`
	// LTV is debt_usd / collateral_usd.
	LTV float64 `expr:"ltv" json:"ltv"`
	// LiquidationLTV is the LTV at which the loan's weakest ledger reaches
	// health 0.
	LiquidationLTV     float64 `expr:"liquidation_ltv" json:"liquidation_ltv"`
	DebtUSD            float64 `expr:"debt_usd" json:"debt_usd"`
	CollateralUSD      float64 `expr:"collateral_usd" json:"collateral_usd"`
	PrincipalUSD       float64 `expr:"principal_usd" json:"principal_usd"`
	InterestAccruedUSD float64 `expr:"interest_accrued_usd" json:"interest_accrued_usd"`
	DailyCarryUSD      float64 `expr:"daily_carry_usd" json:"daily_carry_usd"`
	PnlUSD             float64 `expr:"pnl_usd" json:"pnl_usd"`
	// SecondsToEnd is the least time left to an active ledger's end (0 when
	// past, or when no ledger is active).
	SecondsToEnd int64 `expr:"seconds_to_end" json:"seconds_to_end"`
	IsActive     bool  `expr:"is_active" json:"is_active"`
	// RefinanceExpected reports whether every active ledger has a quote
	// able to refinance it (see docs/policies.md).
	RefinanceExpected bool              `expr:"refinance_expected" json:"refinance_expected"`
	Ledgers           []LedgerFacts     `expr:"ledgers" json:"ledgers"`
	Collateral        []CollateralFacts `expr:"collateral" json:"collateral"`
}

// LedgerFacts describe one ledger (debt record) of a loan.
type LedgerFacts struct {
	Index               int    `expr:"index" json:"index"`
	PrincipalMint       string `expr:"principal_mint" json:"principal_mint"`
	PrincipalDue        uint64 `expr:"principal_due" json:"principal_due"`
	PrincipalRepaid     uint64 `expr:"principal_repaid" json:"principal_repaid"`
	InterestOutstanding uint64 `expr:"interest_outstanding" json:"interest_outstanding"`
	// Debt is the outstanding principal plus interest outstanding plus the
	// interest still to accrue until the ledger's end.
	Debt    uint64  `expr:"debt" json:"debt"`
	DebtUSD float64 `expr:"debt_usd" json:"debt_usd"`
	// CapacityUSD is Σ collateral usd × weight × liquidation threshold.
	CapacityUSD  float64 `expr:"capacity_usd" json:"capacity_usd"`
	Health       float64 `expr:"health" json:"health"`
	EndTime      int64   `expr:"end_time" json:"end_time"`
	SecondsToEnd int64   `expr:"seconds_to_end" json:"seconds_to_end"`
	APY          float64 `expr:"apy" json:"apy"`
	IsActive     bool    `expr:"is_active" json:"is_active"`
}

// CollateralFacts describe one collateral entry of a loan.
type CollateralFacts struct {
	Index      int     `expr:"index" json:"index"`
	Mint       string  `expr:"mint" json:"mint"`
	Identifier string  `expr:"identifier" json:"identifier"`
	IsCLMM     bool    `expr:"is_clmm" json:"is_clmm"`
	Amount     uint64  `expr:"amount" json:"amount"`
	USD        float64 `expr:"usd" json:"usd"`
}

// PositionFacts describe one CLMM collateral position of a loan.
type PositionFacts struct {
	Loan            string `expr:"loan" json:"loan"`
	PositionMint    string `expr:"position_mint" json:"position_mint"`
	Pool            string `expr:"pool" json:"pool"`
	Dex             string `expr:"dex" json:"dex"`
	CollateralIndex int    `expr:"collateral_index" json:"collateral_index"`
	TickLower       int64  `expr:"tick_lower" json:"tick_lower"`
	TickUpper       int64  `expr:"tick_upper" json:"tick_upper"`
	TickCurrent     int64  `expr:"tick_current" json:"tick_current"`
	TickSpacing     int64  `expr:"tick_spacing" json:"tick_spacing"`
	InRange         bool   `expr:"in_range" json:"in_range"`
	// DistanceTicks is the distance to the nearer edge: positive inside the
	// range, negative outside it.
	DistanceTicks int64 `expr:"distance_ticks" json:"distance_ticks"`
	// DistancePct is DistanceTicks in percent of the range width (at most 50).
	DistancePct float64 `expr:"distance_pct" json:"distance_pct"`
	// OwedKnown reports whether the owed amounts below could be computed
	// (the pool, the position and both boundary tick arrays were read and
	// decoded). When false they are 0 and claim-fees does not act.
	OwedKnown bool `expr:"owed_known" json:"owed_known"`
	// FeesOwed0 and FeesOwed1 are the fees a claim made now pays, in base
	// units of token 0 and token 1: the stored amount plus what accrued
	// since the position was last touched, computed as the position's
	// program computes it (keeper/clmm).
	FeesOwed0 uint64 `expr:"fees_owed_0" json:"fees_owed_0"`
	FeesOwed1 uint64 `expr:"fees_owed_1" json:"fees_owed_1"`
	// FeesOwedUSD is the USD value of the fees owed at the prices of
	// prices: (the runtime reads them for claim-fees policies with
	// min_value_usd, and for expressions that read this fact); unknown when
	// a token with fees owed has no usable price.
	FeesOwedUSD float64 `expr:"fees_owed_usd" json:"fees_owed_usd"`
	// FeesStored0 and FeesStored1 are the fees stored in the position
	// account, which the programs update only when the position is touched.
	FeesStored0 uint64 `expr:"fees_stored_0" json:"fees_stored_0"`
	FeesStored1 uint64 `expr:"fees_stored_1" json:"fees_stored_1"`
	// RewardsOwed are the rewards owed per reward slot of the pool, in base
	// units of RewardMints[i], computed like the fees from the reward
	// growth as of the pool's last reward update.
	RewardsOwed [clmm.NumRewards]uint64 `expr:"rewards_owed" json:"rewards_owed"`
	// RewardMints are the reward mints per slot; "" for an unused slot.
	RewardMints [clmm.NumRewards]string `expr:"reward_mints" json:"reward_mints"`
	Liquidity   float64                 `expr:"liquidity" json:"liquidity"`
	// Price is token 1 per token 0 in whole tokens when the decimals are
	// known, in base units otherwise.
	Price float64 `expr:"price" json:"price"`
}

// WithdrawalFacts describe one queued earn withdrawal request.
type WithdrawalFacts struct {
	Vault     string `expr:"vault" json:"vault"`
	RequestID string `expr:"request_id" json:"request_id"`
	Wallet    string `expr:"wallet" json:"wallet"`
	Requested uint64 `expr:"requested" json:"requested"`
	Filled    uint64 `expr:"filled" json:"filled"`
	Claimed   uint64 `expr:"claimed" json:"claimed"`
	// Claimable is the filled amount.
	Claimable uint64 `expr:"claimable" json:"claimable"`
	// State is open, partially_filled, filled, claimed or cancelled.
	State       string `expr:"state" json:"state"`
	FullyFilled bool   `expr:"fully_filled" json:"fully_filled"`
}

// VaultFacts describe one lending vault, with the spec's metrics.
type VaultFacts struct {
	Address       string `expr:"address" json:"address"`
	Strategy      string `expr:"strategy" json:"strategy"`
	PrincipalMint string `expr:"principal_mint" json:"principal_mint"`
	// TVL is tokenBalance + externalYieldAmount + currentDeployedAmount +
	// outstandingInterestAmount, in principal smallest units.
	TVL        float64 `expr:"tvl" json:"tvl"`
	LendingAPY float64 `expr:"lending_apy" json:"lending_apy"`
	RewardsAPY float64 `expr:"rewards_apy" json:"rewards_apy"`
	TotalAPY   float64 `expr:"total_apy" json:"total_apy"`
	// Utilisation is currentDeployedAmount / tvl.
	Utilisation float64 `expr:"utilisation" json:"utilisation"`
	// Idle is the strategy's tokenBalance.
	Idle uint64 `expr:"idle" json:"idle"`
	// IdleAboveBuffer is idle minus the policy's buffer param, or 0.
	IdleAboveBuffer     uint64 `expr:"idle_above_buffer" json:"idle_above_buffer"`
	OriginationsEnabled bool   `expr:"originations_enabled" json:"originations_enabled"`
}

// StrategyFacts describe the strategy behind a vault.
type StrategyFacts struct {
	Address             string      `expr:"address" json:"address"`
	Authority           string      `expr:"authority" json:"authority"`
	Idle                uint64      `expr:"idle" json:"idle"`
	Deployed            uint64      `expr:"deployed" json:"deployed"`
	External            uint64      `expr:"external" json:"external"`
	OutstandingInterest uint64      `expr:"outstanding_interest" json:"outstanding_interest"`
	OriginationsEnabled bool        `expr:"originations_enabled" json:"originations_enabled"`
	Terms               []TermFacts `expr:"terms" json:"terms"`
}

// TermFacts are a strategy's terms for one collateral.
type TermFacts struct {
	Collateral        string  `expr:"collateral" json:"collateral"`
	MaxAllocationPct  float64 `expr:"max_allocation_pct" json:"max_allocation_pct"`
	CurrentAllocation uint64  `expr:"current_allocation" json:"current_allocation"`
	// APYs maps a duration ("7 days") to its APY.
	APYs map[string]float64 `expr:"apys" json:"apys"`
}

// QuoteFacts describe the best quote for one collateral.
type QuoteFacts struct {
	Collateral    string  `expr:"collateral" json:"collateral"`
	PrincipalMint string  `expr:"principal_mint" json:"principal_mint"`
	Duration      string  `expr:"duration" json:"duration"`
	APY           float64 `expr:"apy" json:"apy"`
	LTV           float64 `expr:"ltv" json:"ltv"`
	LQT           float64 `expr:"lqt" json:"lqt"`
	Amount        uint64  `expr:"amount" json:"amount"`
	Strategy      string  `expr:"strategy" json:"strategy"`
}
