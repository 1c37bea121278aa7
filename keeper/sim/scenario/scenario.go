// Package scenario is the format of the simulator's scenario files: the
// market's initial state and the events scripted on its clock, as data.
// [Parse] decodes a file strictly; package sim checks what its values mean
// and builds the market from it.
package scenario

import (
	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// Scenario is a scenario file: the simulator's initial state and the events scripted on its clock.
// Amounts are decimal strings in whole tokens of their mint ("12.5" USDC = 12,500,000 base units)
// unless a field says otherwise; prices are USD; times are offsets from the simulator's start, the
// clock's time when New runs ("-10d", "30s",
// "1h30m"; "d" means 24 h); APYs and ratios of the market are integers in centi-basis points
// (1,000,000 = 100 %) and vault APYs fractions (0.05 = 5 %). Wherever a wallet is expected, "$wallet"
// stands for the operator's wallet (Options.Wallet), a name refers to an entry of Wallets (or of
// Multisigs: its vault 0), and anything else must be a base58 address. Mints are referred to by symbol, pools by name. Addresses of
// loans, strategies, vaults, pools and earn vaults are derived from their names (program addresses of
// the simulator's programs); see package sim's documentation.
type Scenario struct {
	// Name describes the scenario.
	Name string `yaml:"name"`
	// Wallet funds the operator's wallet.
	Wallet Funding `yaml:"wallet"`
	// Mints are the tokens, with their oracle prices.
	Mints []MintSpec `yaml:"mints"`
	// Wallets are other named wallets.
	Wallets []WalletSpec `yaml:"wallets"`
	// Pools and Positions are CLMM pools and positions of dex-a and dex-b.
	Pools     []PoolSpec     `yaml:"pools"`
	Positions []PositionSpec `yaml:"positions"`
	// Strategies are lending strategies; Vaults are lending vaults, each over one strategy.
	Strategies []StrategySpec `yaml:"strategies"`
	Vaults     []VaultSpec    `yaml:"vaults"`
	// Loans are loans with their collateral, ledgers and collateral history.
	Loans []LoanSpec `yaml:"loans"`
	// Loops are loop records (E12).
	Loops []LoopSpec `yaml:"loops"`
	// Earn are earn vaults with positions and queued withdrawal requests.
	Earn []EarnSpec `yaml:"earn"`
	// Events are scripted on the sim clock.
	Events []EventSpec `yaml:"events"`
	// AMMs are the pools of the swap program behind the simulator's Jupiter API (amm.go).
	AMMs []AMMSpec `yaml:"amms"`
	// Market sets how the market builds its answers and how the network treats them.
	Market MarketSpec `yaml:"market"`
	// Multisigs are Squads v4 multisigs (package squadsim's model of the program). Wherever a
	// wallet is expected, a multisig's name stands for its vault 0, the address that signs when the
	// multisig executes: a strategy whose authority is a multisig's name is held by the multisig.
	Multisigs []MultisigSpec `yaml:"multisigs"`

	file string     // the file it was parsed from, for error positions
	root *yaml.Node // its document, or nil for a scenario built in code
}

// Parse decodes a scenario file strictly (unknown keys, duplicate keys and mistyped values
// are errors, each as file:line:col: message) without checking what its values mean.
func Parse(file string, data []byte) (*Scenario, error) {
	root, err := strictyaml.ParseDocument(file, data)
	if err != nil {
		return nil, err
	}
	sc := &Scenario{}
	if errs := strictyaml.Decode(file, root, sc, strictyaml.Options{}); len(errs) > 0 {
		return nil, errs
	}
	sc.file, sc.root = file, root
	return sc, nil
}

// Source returns the file the scenario was decoded from and its document, or "" and nil for a
// scenario built in code.
func (sc *Scenario) Source() (file string, root *yaml.Node) { return sc.file, sc.root }

// Funding is SOL (whole SOL) and tokens (symbol → whole tokens) given to a wallet.
type Funding struct {
	SOL    string            `yaml:"sol"`
	Tokens map[string]string `yaml:"tokens"`
}

// MintSpec is one token.
type MintSpec struct {
	Symbol   string  `yaml:"symbol"`
	Address  string  `yaml:"address"` // optional; default derived from the symbol
	Decimals int     `yaml:"decimals"`
	Price    float64 `yaml:"price"`     // USD per whole token
	YieldAPY float64 `yaml:"yield_apy"` // the token's own yield (e.g. a staking token), a fraction
	// Name is the token's name in its metadata; default the symbol.
	Name string `yaml:"name"`
	// Program is the mint's token program: "token" (default; with a Metaplex metadata account) or
	// "token-2022" (with the metadata extension in the mint). The simulated chain does not execute
	// Token-2022 instructions, so a Token-2022 mint can be read (decimals, metadata) but not held.
	Program string `yaml:"program"`
	// Pyth is the mint's Pyth price feed id (64 hex digits): the simulator pushes the mint's price to
	// the feed's sponsored account as Pyth's pusher does (on a 60 s heartbeat and on a 0.5 % move).
	// Empty: no feed on chain.
	Pyth string `yaml:"pyth"`
}

// WalletSpec is another wallet.
type WalletSpec struct {
	Name    string  `yaml:"name"`
	Address string  `yaml:"address"` // optional; default derived from the name
	Fund    Funding `yaml:"fund"`
}

// PoolSpec is one CLMM pool.
type PoolSpec struct {
	Name        string            `yaml:"name"`
	Dex         string            `yaml:"dex"` // dex-a or dex-b
	Mint0       string            `yaml:"mint0"`
	Mint1       string            `yaml:"mint1"`
	TickSpacing int               `yaml:"tick_spacing"`
	Price       float64           `yaml:"price"`       // whole mint1 per whole mint0
	Liquidity   string            `yaml:"liquidity"`   // active liquidity, an integer
	FeeRate     int               `yaml:"fee_rate"`    // millionths (stored by dex-b only)
	Reserves    map[string]string `yaml:"reserves"`    // tokens in the pool's vaults; they pay claimed fees
	TickArrays  string            `yaml:"tick_arrays"` // dex-b: "fixed" (default) or "dynamic" tick-array accounts
	Rewards     []PoolRewardSpec  `yaml:"rewards"`     // dex-b: up to 3 reward emissions
}

// PoolRewardSpec is one reward emission of a dex-b pool: PerDay whole tokens of Mint a day, shared by
// the liquidity in range, accrued by the pool's reward growth whenever the pool is touched.
type PoolRewardSpec struct {
	Mint   string `yaml:"mint"`
	PerDay string `yaml:"per_day"`
}

// PositionSpec is one CLMM position. Its range is given in ticks or in prices (whole mint1 per whole
// mint0, rounded down to the pool's tick spacing).
type PositionSpec struct {
	Name       string  `yaml:"name"`
	Pool       string  `yaml:"pool"`
	LowerTick  *int32  `yaml:"lower_tick"`
	UpperTick  *int32  `yaml:"upper_tick"`
	LowerPrice float64 `yaml:"lower_price"`
	UpperPrice float64 `yaml:"upper_price"`
	Liquidity  string  `yaml:"liquidity"` // an integer
	Fees0      string  `yaml:"fees_0"`    // fees stored in the position account, whole tokens of mint0
	Fees1      string  `yaml:"fees_1"`
}

// StrategySpec is one lending strategy.
type StrategySpec struct {
	Name                string     `yaml:"name"`
	Authority           string     `yaml:"authority"`
	PrincipalMint       string     `yaml:"principal_mint"`
	Idle                string     `yaml:"idle"`           // principal held by the strategy
	ExternalYield       string     `yaml:"external_yield"` // principal deployed to external yield
	OriginationsEnabled *bool      `yaml:"originations_enabled"`
	LiquidityBuffer     string     `yaml:"liquidity_buffer"` // principal kept out of quotes
	InterestFee         int64      `yaml:"interest_fee"`
	OriginationFee      int64      `yaml:"origination_fee"`
	PrincipalFee        int64      `yaml:"principal_fee"`
	OriginationCap      int64      `yaml:"origination_cap"`
	ExternalYieldSource int32      `yaml:"external_yield_source"`
	Terms               []TermSpec `yaml:"terms"`
}

// TermSpec is a strategy's terms for one collateral (a mint symbol or a pool name). Apys maps a loan
// term ("7d", "2w", "3mo", "90m", "1y") to an APY in cBPS.
type TermSpec struct {
	Collateral       string           `yaml:"collateral"`
	Ltv              int64            `yaml:"ltv"`
	Lqt              int64            `yaml:"lqt"`
	MaxAllocationPct string           `yaml:"max_allocation_pct"` // percent; default "100"
	Apys             map[string]int64 `yaml:"apys"`
}

// VaultSpec is one lending vault over a strategy.
type VaultSpec struct {
	Name        string        `yaml:"name"`
	Strategy    string        `yaml:"strategy"`
	ExternalAPY float64       `yaml:"external_apy"`
	Rewards     []RewardSpec  `yaml:"rewards"`
	Deposits    []DepositSpec `yaml:"deposits"`
}

// RewardSpec is one reward emission schedule. EmissionsPerSecond is reward base units per second
// scaled by 1e9, as the API reports it.
type RewardSpec struct {
	Mint               string `yaml:"mint"`
	Start              string `yaml:"start"`
	End                string `yaml:"end"`
	EmissionsPerSecond string `yaml:"emissions_per_second"`
}

// DepositSpec is one depositor of a vault (E5).
type DepositSpec struct {
	User          string `yaml:"user"`
	Amount        string `yaml:"amount"`
	StakeDuration int32  `yaml:"stake_duration"`
	Status        int32  `yaml:"status"`
}

// LoanSpec is one loan.
type LoanSpec struct {
	Name        string           `yaml:"name"`
	Borrower    string           `yaml:"borrower"`
	Started     string           `yaml:"started"` // default "-1d"
	Closed      bool             `yaml:"closed"`
	LoanType    int32            `yaml:"loan_type"`
	FundingType int32            `yaml:"funding_type"`
	Collateral  []CollateralSpec `yaml:"collateral"`
	Ledgers     []LedgerSpec     `yaml:"ledgers"`
	History     []HistorySpec    `yaml:"history"`
	Rollovers   []string         `yaml:"rollovers"` // times of rollover PnL markers
}

// CollateralSpec is one collateral slot: a plain token (Mint and Amount) or a CLMM position.
type CollateralSpec struct {
	Mint     string `yaml:"mint"`
	Amount   string `yaml:"amount"`
	Position string `yaml:"position"`
}

// LedgerSpec is one ledger. LTV, LQT and Weights are rows over the collateral slots in cBPS; they
// default to the strategy's terms for each collateral and to an equal share of every collateral.
type LedgerSpec struct {
	Strategy  string  `yaml:"strategy"`
	Principal string  `yaml:"principal"` // borrowed, whole tokens of the strategy's principal mint
	Repaid    string  `yaml:"repaid"`
	Apy       int64   `yaml:"apy"`  // cBPS; default the strategy's APY for the first collateral and term
	Term      string  `yaml:"term"` // loan term, e.g. "30d"
	Started   string  `yaml:"started"`
	Ltv       []int64 `yaml:"ltv"`
	Lqt       []int64 `yaml:"lqt"`
	Weights   []int64 `yaml:"weights"`
	Loop      bool    `yaml:"loop"`
}

// HistorySpec is one collateral-history event of a loan. Asset is a mint symbol or pool name; for
// Liquidate, Amount is principal repaid (whole principal tokens) and Transfers the collateral moved.
// Without history a loan gets one AddCollateral per collateral slot at its start.
type HistorySpec struct {
	At        string         `yaml:"at"`
	Kind      string         `yaml:"kind"`
	Asset     string         `yaml:"asset"`
	Amount    string         `yaml:"amount"`
	Transfers []TransferSpec `yaml:"transfers"`
}

// TransferSpec is one collateral transfer of a Liquidate event.
type TransferSpec struct {
	Asset        string `yaml:"asset"`
	Amount       string `yaml:"amount"`
	ToLiquidator bool   `yaml:"to_liquidator"`
}

// LoopSpec is one loop record.
type LoopSpec struct {
	Identifier     string   `yaml:"identifier"`
	PrincipalMint  string   `yaml:"principal_mint"`
	CollateralMint string   `yaml:"collateral_mint"`
	Tags           []string `yaml:"tags"`
	// CollateralDeposited and WAvgApy, when set, are served as given; unset, they are computed from
	// the loop's open loans at each request (see loopFigures).
	CollateralDeposited *float64 `yaml:"collateral_deposited"`
	WAvgApy             *float64 `yaml:"wavg_apy"`
	MaxApy              *float64 `yaml:"max_apy"`
}

// EarnSpec is one earn vault.
type EarnSpec struct {
	Name      string             `yaml:"name"`
	Mint      string             `yaml:"mint"`
	Reserves  string             `yaml:"reserves"` // tokens in the vault; they pay claims
	Positions []EarnPositionSpec `yaml:"positions"`
	Requests  []RequestSpec      `yaml:"requests"`
}

// EarnPositionSpec is a wallet's position in an earn vault.
type EarnPositionSpec struct {
	Wallet string `yaml:"wallet"`
	Shares string `yaml:"shares"`
	Assets string `yaml:"assets"`
}

// RequestSpec is one queued withdrawal request.
type RequestSpec struct {
	Name      string `yaml:"name"`
	Wallet    string `yaml:"wallet"`
	Requested string `yaml:"requested"`
	Filled    string `yaml:"filled"`
	Created   string `yaml:"created"` // default "-1h"
}

// MultisigSpec is one Squads v4 multisig, created at the simulator's start as multisig_create_v2
// would (its address derives from its name: the create key is the derived address
// "keeper/sim multisig NAME"). Its members are the operator's wallet, with the permissions Keeper
// lists, and Voters, members with Vote only whose keys the simulator holds: a test votes as them
// through the control route POST /_sim/squads/vote (see package sim's Control).
type MultisigSpec struct {
	Name string `yaml:"name"`
	// Threshold is the approvals a proposal needs, 1 to the number of voting members.
	Threshold int `yaml:"threshold"`
	// TimeLock is the seconds between a proposal's approval and its execution; default 0.
	TimeLock int `yaml:"time_lock"`
	// Keeper lists the operator's wallet's permissions: "initiate", "vote", "execute". Empty: the
	// wallet is not a member.
	Keeper []string `yaml:"keeper"`
	// Voters are the names of the members with Vote; each is funded with 1 SOL to pay its votes.
	Voters []string `yaml:"voters"`
}

// EventSpec is one scripted event: exactly one of its members besides At and AtSlot is set. At is an
// offset from the start; AtSlot, instead of At, is a chain slot (slot n starts n × 400 ms after the
// start).
type EventSpec struct {
	At          string             `yaml:"at"`
	AtSlot      *uint64            `yaml:"at_slot"`
	PriceMove   *PriceMove         `yaml:"price_move"`
	Oracle      map[string]float64 `yaml:"oracle"` // mint symbol → new USD price
	Pool        *PoolMove          `yaml:"pool"`
	Fill        *FillSpec          `yaml:"fill"`
	Fees        *FeesSpec          `yaml:"fees"`
	ExternalAPY *ExternalAPYSpec   `yaml:"external_apy"`
	Term        *TermChange        `yaml:"term"`
	Pyth        *PythEvent         `yaml:"pyth"`
	Congestion  *CongestionSpec    `yaml:"congestion"`
	Jito        *JitoSpec          `yaml:"jito"`
	AMM         *AMMEvent          `yaml:"amm"`
}

// CongestionSpec turns the chain's competing load on (or, with Off, off) from the event's slot (the
// first slot starting at or after it): in every slot, other users' transactions each write-lock one of
// Accounts and bid a compute-unit price drawn from Prices, asking Demand times what one account may
// take of a block. While it is on, every transaction waits for the next block, where the leader packs
// the best-paying transactions that fit the block's limits; one that never fits stays unlanded until
// its blockhash expires. See package chainsim's Market.
type CongestionSpec struct {
	Off bool `yaml:"off"`
	// Accounts are loan, strategy, vault, pool, earn-vault or wallet names, "$wallet" or base58
	// addresses.
	Accounts []string `yaml:"accounts"`
	// Prices are quantiles of the bids in micro-lamports per compute unit, evenly spaced from the
	// lowest to the highest: [p] is one price, [lo, hi] uniform, five values quartiles.
	Prices []uint64 `yaml:"prices"`
	// Units is each competing transaction's compute-unit limit; default 200000.
	Units uint64 `yaml:"units"`
	// Demand is the compute asked of each account per slot, in multiples of the writable-account
	// limit; default 2 (half of it lands, so the clearing price is about the median bid).
	Demand float64 `yaml:"demand"`
}

// JitoSpec sets, from the event's slot on, the share of leaders that do not run the Jito client (their
// slots take no bundle; leaders take turns of 4 slots, drawn from the chain's seed) and the competing
// bids of the tip auction: in every Jito slot Bundles bundles bid tips (lamports) drawn from Tips, as
// Prices above, and Room of them win; a bundle lands only if fewer than Room competing bundles bid at
// least its tip. No tips means no competing bid.
type JitoSpec struct {
	NonJitoShare *float64 `yaml:"non_jito_share"`
	Tips         []uint64 `yaml:"tips"`
	Bundles      int      `yaml:"bundles"`
	Room         int      `yaml:"room"`
}

// PriceMove moves a mint's oracle price by a fraction (By -0.05 is 5 % down): the chain rewrites the
// mint's Pyth price account with the moved price exactly when it reaches the event's slot (so it needs
// at_slot and a mint with a pyth feed), and the market prices the mint at the moved price from then on.
type PriceMove struct {
	Mint string  `yaml:"mint"`
	By   float64 `yaml:"by"`
}

// PythEvent stops or restarts the pushing of mints' Pyth feeds (by symbol): a halted feed keeps its
// last price and publish time, and goes stale.
type PythEvent struct {
	Halt   []string `yaml:"halt"`
	Resume []string `yaml:"resume"`
}

// PoolMove is a swap in a pool: it pays Fees0 and Fees1 (whole tokens, optional) to the liquidity
// active at the current price, then moves the price (whole mint1 per whole mint0) or the current tick
// (optional when fees are given), crossing the initialized ticks in between.
type PoolMove struct {
	Name  string  `yaml:"name"`
	Price float64 `yaml:"price"`
	Tick  *int32  `yaml:"tick"`
	Fees0 string  `yaml:"fees_0"`
	Fees1 string  `yaml:"fees_1"`
}

// FillSpec fills Amount more of a withdrawal request (capped at what was requested).
type FillSpec struct {
	Vault   string `yaml:"vault"`
	Request string `yaml:"request"`
	Amount  string `yaml:"amount"`
}

// FeesSpec is swaps that earn a position the given fees (whole tokens of the pool's mints): the pool's
// fee growth rises so that the position, which must be in range, accrues them (other positions in
// range accrue their share). The stored figure in the position account does not change.
type FeesSpec struct {
	Position string `yaml:"position"`
	Fees0    string `yaml:"fees_0"`
	Fees1    string `yaml:"fees_1"`
}

// ExternalAPYSpec sets a vault's external yield APY (a fraction).
type ExternalAPYSpec struct {
	Vault string  `yaml:"vault"`
	APY   float64 `yaml:"apy"`
}

// TermChange sets one APY of a strategy's terms, as a strategy update would.
type TermChange struct {
	Strategy   string `yaml:"strategy"`
	Collateral string `yaml:"collateral"`
	Term       string `yaml:"term"`
	APY        int64  `yaml:"apy"`
}

// MarketSpec sets how the simulated market packs its answers, and a drop by the network.
type MarketSpec struct {
	// UpdateItemsPerTransaction caps the term items of one strategy-update transaction; 0 packs as
	// many as fit the transaction size limit. A lower cap makes an update of several terms an answer
	// of several transactions, each applying only after the one before it, as a large update is.
	UpdateItemsPerTransaction int `yaml:"update_items_per_transaction"`
	// DropUpdateStep, from 2, makes the network drop the first transaction sent by sendTransaction
	// that carries this step of a split strategy update: the sender sees it accepted, it never lands
	// however often the same bytes are sent, and the steps before it stay applied. Later
	// transactions (the same step signed again) land.
	DropUpdateStep int `yaml:"drop_update_step"`
	// WithdrawalQueueFields renames the members of the withdrawal-queue answer, as a service whose
	// shape differs from keeper's assumed one would answer; a key left out keeps the assumed name.
	WithdrawalQueueFields QueueFieldsSpec `yaml:"withdrawal_queue_fields"`
}

// QueueFieldsSpec names the members of the withdrawal-queue answer, with the keys of keeper's
// market.fields.withdrawal_queue.
type QueueFieldsSpec struct {
	Requests    string `yaml:"requests"`
	RequestID   string `yaml:"request_id"`
	Wallet      string `yaml:"wallet"`
	Requested   string `yaml:"requested"`
	Filled      string `yaml:"filled"`
	Claimed     string `yaml:"claimed"`
	Cancelled   string `yaml:"cancelled"`
	CreatedTime string `yaml:"created_time"`
}
