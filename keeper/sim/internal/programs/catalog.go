package programs

import (
	"maps"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/prices"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
)

// Catalog is the market's catalogue: what exists, under which addresses, and the market's off-chain data
// (oracle prices, vault yields, deposits, loops). Everything a transaction changes lives on chain.
// The catalogue is fixed after New; the mutable members say which lock guards them.
type Catalog struct {
	Wallet solana.PublicKey

	Mints      []*Mint
	MintByAddr map[solana.PublicKey]*Mint
	MintBySym  map[string]*Mint
	Wallets    map[string]solana.PublicKey // named wallets
	Pools      []*Pool
	PoolByAddr map[solana.PublicKey]*Pool
	Positions  []*Position
	PosByMint  map[solana.PublicKey]*Position
	Strategies []*Strategy
	StratByAdr map[solana.PublicKey]*Strategy
	Vaults     []*Vault
	Loans      []*Loan
	LoanByAddr map[solana.PublicKey]*Loan
	Loops      []Loop
	Earn       []*Earn
	EarnByAddr map[solana.PublicKey]*Earn
	Requests   map[solana.PublicKey]*Request
	Multisigs  []*Multisig
	// Named maps a kind of thing (KindPool, KindLoan, ...) and the
	// scenario's name for it to its address; see world.name.
	Named map[string]map[string]solana.PublicKey

	// Prices maps mint → USD per whole token. It is replaced as a whole (copy on write) by oracle
	// events, so programs read it without the market's lock.
	Prices atomic.Pointer[map[solana.PublicKey]float64]
	// PricesAt is when an event last changed prices (unix nanoseconds; 0: never since the start).
	PricesAt atomic.Int64
}

// Multisig is a Squads multisig of the scenario, with the keys of the
// members the simulator votes as.
type Multisig struct {
	Name    string
	Address solana.PublicKey
	Vault   solana.PublicKey // vault 0, the address that stands for the multisig
	Voters  []Voter
}

// Voter is a member of a Multisig with Vote, whose key the simulator holds.
type Voter struct {
	Name string
	Key  solana.PrivateKey
}

// Mint is one token.
type Mint struct {
	Symbol    string
	Name      string
	Address   solana.PublicKey
	Decimals  uint8
	YieldAPY  float64
	Token2022 bool // a Token-2022 mint: readable, not held (see MintSpec.Program)
	// Pyth is the mint's Pyth price feed, nil when the scenario gives none.
	Pyth *PythFeed
}

// Dex is one CLMM program.
type Dex struct {
	Name    string
	Program solana.PublicKey
	Layout  clmm.Layout
}

// Pool is one CLMM pool; its price and liquidity live in its account on chain.
type Pool struct {
	Name         string
	Dex          Dex
	Address      solana.PublicKey
	Mint0, Mint1 *Mint
	TickSpacing  uint16
	// DynamicTicks selects dex-b's dynamic tick-array format for the
	// arrays of this pool (fixed otherwise).
	DynamicTicks bool
}

// Book returns an empty tick book of the pool.
func (p *Pool) Book() *TickBook {
	return NewTickBook(p.Dex, p.Address, p.TickSpacing, p.DynamicTicks)
}

// Position is one CLMM position; its range, liquidity and fees live in its account on chain.
type Position struct {
	Name    string
	Pool    *Pool
	Mint    solana.PublicKey
	Address solana.PublicKey
	Loan    *Loan // the loan holding it as collateral, or nil
}

// Strategy is one lending strategy; its state lives in its account on chain.
type Strategy struct {
	Name    string
	Address solana.PublicKey
	Mint    *Mint
}

// Vault is one lending vault over a strategy.
type Vault struct {
	Name        string
	Address     solana.PublicKey
	LPMint      solana.PublicKey
	Strategy    *Strategy
	ExternalAPY float64 // guarded by Sim.mu
	Rewards     []RewardSchedule
	Deposits    []Deposit
}

// RewardSchedule is one token emission schedule of a vault: from Start to End (unix seconds), at
// EmissionsPerSecond of the reward mint's base units, scaled by 1e9.
type RewardSchedule struct {
	Mint               solana.PublicKey // zero when the scenario names none
	Start, End         int64
	EmissionsPerSecond float64
}

// Deposit is one depositor of a vault.
type Deposit struct {
	User          solana.PublicKey
	Amount        uint64
	StakeDuration int32
	Status        int32
}

// Loan is one loan; its state lives in its account on chain.
type Loan struct {
	Name    string
	Address solana.PublicKey
}

// Earn is one earn vault.
type Earn struct {
	Name      string
	Address   solana.PublicKey
	Mint      *Mint
	Positions []EarnPosition
	Requests  []*Request
}

// EarnPosition is a wallet's position in an earn vault.
type EarnPosition struct {
	Wallet         solana.PublicKey
	Shares, Assets uint64
}

// Request is one withdrawal request; its fill and claim state live in its account on chain.
type Request struct {
	Name      string
	Vault     *Earn
	Address   solana.PublicKey
	Wallet    solana.PublicKey
	Requested uint64
	Filled    uint64 // guarded by Sim.mu; mirrors the account, which a claim closes
	Created   int64
}

// NewCatalog returns an empty catalogue for wallet.
func NewCatalog(wallet solana.PublicKey) *Catalog {
	w := &Catalog{
		Wallet:     wallet,
		MintByAddr: map[solana.PublicKey]*Mint{},
		MintBySym:  map[string]*Mint{},
		Wallets:    map[string]solana.PublicKey{},
		PoolByAddr: map[solana.PublicKey]*Pool{},
		PosByMint:  map[solana.PublicKey]*Position{},
		StratByAdr: map[solana.PublicKey]*Strategy{},
		LoanByAddr: map[solana.PublicKey]*Loan{},
		EarnByAddr: map[solana.PublicKey]*Earn{},
		Requests:   map[solana.PublicKey]*Request{},
		Named:      map[string]map[string]solana.PublicKey{},
	}
	w.Prices.Store(&map[solana.PublicKey]float64{})
	return w
}

// Name records the scenario's name for a thing of kind at addr, for
// Accounts.Address.
func (w *Catalog) Name(kind, name string, addr solana.PublicKey) {
	if w.Named[kind] == nil {
		w.Named[kind] = map[string]solana.PublicKey{}
	}
	w.Named[kind][name] = addr
}

// Price returns the USD price of one whole token of mint.
func (w *Catalog) Price(mint solana.PublicKey) (float64, bool) {
	p, ok := (*w.Prices.Load())[mint]
	return p, ok
}

// SetPrices replaces some prices, copying the table.
func (w *Catalog) SetPrices(changes map[solana.PublicKey]float64) {
	next := maps.Clone(*w.Prices.Load())
	maps.Copy(next, changes)
	w.Prices.Store(&next)
}

// Usd returns the USD value of amount base units of mint at the current prices (0 when the mint or
// its price is unknown).
func (w *Catalog) Usd(mint solana.PublicKey, amount uint64) float64 {
	m, ok := w.MintByAddr[mint]
	if !ok {
		return 0
	}
	p, _ := w.Price(mint)
	return units.WholeTokens(amount, m.Decimals) * p
}

// DecimalsOf returns a mint's decimals; unknown assets (pool ids) count in raw units.
func (w *Catalog) DecimalsOf(asset string) uint8 {
	k, err := solana.PublicKeyFromBase58(asset)
	if err != nil {
		return 0
	}
	if m, ok := w.MintByAddr[k]; ok {
		return m.Decimals
	}
	return 0
}

// PythFeed is a mint's Pyth price feed as the simulator's pusher keeps it:
// a PriceUpdateV2 account at the feed's sponsored shard-0 address, owned
// by the receiver program, rewritten on the heartbeat and on a price move
// unless the scenario halted it (then it goes stale, as a feed whose
// pusher stopped does).
type PythFeed struct {
	ID      prices.FeedID
	Account solana.PublicKey
	Halted  bool
	Price   float64   // the price last pushed
	At      time.Time // when it was last pushed; zero before the first push
}

// Loop is one loop record of the scenario: the pair, and the figures the scenario fixes (nil:
// computed from the loop's loans at each request).
type Loop struct {
	Identifier                   string
	Tags                         []string
	Principal, Collateral        *Mint
	FixedDeposited, FixedWAvgApy *float64
	MaxApy                       *float64
}

// DexByName returns the simulator's CLMM program of a layout name.
func DexByName(name string) (Dex, bool) {
	switch name {
	case clmm.DexA:
		return Dex{Name: clmm.DexA, Program: ids.DexAProgramID, Layout: clmm.LayoutA()}, true
	case clmm.DexB:
		return Dex{Name: clmm.DexB, Program: ids.DexBProgramID, Layout: clmm.LayoutB()}, true
	}
	return Dex{}, false
}

// State returns the on-chain state of an unclaimed request.
func (r *Request) State() state.Request {
	return state.Request{Vault: r.Vault.Address, Wallet: r.Wallet, Mint: r.Vault.Mint.Address,
		Requested: r.Requested, Filled: r.Filled, Created: r.Created}
}

// Pyth's sponsored Solana feeds are pushed at least every heartbeat and
// whenever the price moved by more than the deviation since the last push
// (pyth-crosschain push-feeds/data/svm/solana-mainnet.json: time_difference
// 60, price_deviation 0.5).
const (
	PythHeartbeat = 60 * time.Second
	PythDeviation = 0.005
	// PythExponent and PythConfidence shape the published numbers: prices
	// in units of 1e-8 USD, a confidence interval of 0.05 % of the price.
	PythExponent   = -8
	PythConfidence = 0.0005
)
