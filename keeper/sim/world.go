package sim

import (
	"maps"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/prices"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
)

// world is the market's catalogue: what exists, under which addresses, and the market's off-chain data
// (oracle prices, vault yields, deposits, loops). Everything a transaction changes lives on chain.
// The catalogue is fixed after New; the mutable members say which lock guards them.
type world struct {
	wallet solana.PublicKey

	mints      []*mintInfo
	mintByAddr map[solana.PublicKey]*mintInfo
	mintBySym  map[string]*mintInfo
	wallets    map[string]solana.PublicKey // named wallets
	pools      []*poolInfo
	poolByAddr map[solana.PublicKey]*poolInfo
	positions  []*positionInfo
	posByMint  map[solana.PublicKey]*positionInfo
	strategies []*strategyInfo
	stratByAdr map[solana.PublicKey]*strategyInfo
	vaults     []*vaultInfo
	loans      []*loanInfo
	loanByAddr map[solana.PublicKey]*loanInfo
	loops      []loopInfo
	earn       []*earnInfo
	earnByAddr map[solana.PublicKey]*earnInfo
	requests   map[solana.PublicKey]*requestInfo
	// named maps a kind of thing (KindPool, KindLoan, ...) and the
	// scenario's name for it to its address; see world.name.
	named map[string]map[string]solana.PublicKey

	// prices maps mint → USD per whole token. It is replaced as a whole (copy on write) by oracle
	// events, so programs read it without the market's lock.
	prices atomic.Pointer[map[solana.PublicKey]float64]
	// pricesAt is when an event last changed prices (unix nanoseconds; 0: never since the start).
	pricesAt atomic.Int64
}

// mintInfo is one token.
type mintInfo struct {
	Symbol    string
	Name      string
	Address   solana.PublicKey
	Decimals  uint8
	YieldAPY  float64
	Token2022 bool // a Token-2022 mint: readable, not held (see MintSpec.Program)
	// Pyth is the mint's Pyth price feed, nil when the scenario gives none.
	Pyth *pythFeed
}

// dexInfo is one CLMM program.
type dexInfo struct {
	Name    string
	Program solana.PublicKey
	Layout  clmm.Layout
}

// poolInfo is one CLMM pool; its price and liquidity live in its account on chain.
type poolInfo struct {
	Name         string
	Dex          dexInfo
	Address      solana.PublicKey
	Mint0, Mint1 *mintInfo
	TickSpacing  uint16
	// DynamicTicks selects dex-b's dynamic tick-array format for the
	// arrays of this pool (fixed otherwise).
	DynamicTicks bool
}

// book returns an empty tick book of the pool.
func (p *poolInfo) book() *tickBook {
	return newTickBook(p.Dex, p.Address, p.TickSpacing, p.DynamicTicks)
}

// positionInfo is one CLMM position; its range, liquidity and fees live in its account on chain.
type positionInfo struct {
	Name    string
	Pool    *poolInfo
	Mint    solana.PublicKey
	Address solana.PublicKey
	Loan    *loanInfo // the loan holding it as collateral, or nil
}

// strategyInfo is one lending strategy; its state lives in its account on chain.
type strategyInfo struct {
	Name    string
	Address solana.PublicKey
	Mint    *mintInfo
}

// vaultInfo is one lending vault over a strategy.
type vaultInfo struct {
	Name        string
	Address     solana.PublicKey
	LPMint      solana.PublicKey
	Strategy    *strategyInfo
	ExternalAPY float64 // guarded by Sim.mu
	Rewards     []market.RewardSchedule
	Deposits    []depositInfo
}

// depositInfo is one depositor of a vault.
type depositInfo struct {
	User          solana.PublicKey
	Amount        uint64
	StakeDuration int32
	Status        int32
}

// loanInfo is one loan; its state lives in its account on chain.
type loanInfo struct {
	Name    string
	Address solana.PublicKey
}

// earnInfo is one earn vault.
type earnInfo struct {
	Name      string
	Address   solana.PublicKey
	Mint      *mintInfo
	Positions []earnPosition
	Requests  []*requestInfo
}

// earnPosition is a wallet's position in an earn vault.
type earnPosition struct {
	Wallet         solana.PublicKey
	Shares, Assets uint64
}

// requestInfo is one withdrawal request; its fill and claim state live in its account on chain.
type requestInfo struct {
	Name      string
	Vault     *earnInfo
	Address   solana.PublicKey
	Wallet    solana.PublicKey
	Requested uint64
	Filled    uint64 // guarded by Sim.mu; mirrors the account, which a claim closes
	Created   int64
}

// newWorld returns an empty catalogue for wallet.
func newWorld(wallet solana.PublicKey) *world {
	w := &world{
		wallet:     wallet,
		mintByAddr: map[solana.PublicKey]*mintInfo{},
		mintBySym:  map[string]*mintInfo{},
		wallets:    map[string]solana.PublicKey{},
		poolByAddr: map[solana.PublicKey]*poolInfo{},
		posByMint:  map[solana.PublicKey]*positionInfo{},
		stratByAdr: map[solana.PublicKey]*strategyInfo{},
		loanByAddr: map[solana.PublicKey]*loanInfo{},
		earnByAddr: map[solana.PublicKey]*earnInfo{},
		requests:   map[solana.PublicKey]*requestInfo{},
		named:      map[string]map[string]solana.PublicKey{},
	}
	w.prices.Store(&map[solana.PublicKey]float64{})
	return w
}

// name records the scenario's name for a thing of kind at addr, for
// Sim.Address.
func (w *world) name(kind, name string, addr solana.PublicKey) {
	if w.named[kind] == nil {
		w.named[kind] = map[string]solana.PublicKey{}
	}
	w.named[kind][name] = addr
}

// price returns the USD price of one whole token of mint.
func (w *world) price(mint solana.PublicKey) (float64, bool) {
	p, ok := (*w.prices.Load())[mint]
	return p, ok
}

// setPrices replaces some prices, copying the table.
func (w *world) setPrices(changes map[solana.PublicKey]float64) {
	next := maps.Clone(*w.prices.Load())
	maps.Copy(next, changes)
	w.prices.Store(&next)
}

// usd returns the USD value of amount base units of mint at the current prices (0 when the mint or
// its price is unknown).
func (w *world) usd(mint solana.PublicKey, amount uint64) float64 {
	m, ok := w.mintByAddr[mint]
	if !ok {
		return 0
	}
	p, _ := w.price(mint)
	return units.WholeTokens(amount, m.Decimals) * p
}

// decimalsOf returns a mint's decimals; unknown assets (pool ids) count in raw units.
func (w *world) decimalsOf(asset string) uint8 {
	k, err := solana.PublicKeyFromBase58(asset)
	if err != nil {
		return 0
	}
	if m, ok := w.mintByAddr[k]; ok {
		return m.Decimals
	}
	return 0
}

// pythFeed is a mint's Pyth price feed as the simulator's pusher keeps it:
// a PriceUpdateV2 account at the feed's sponsored shard-0 address, owned
// by the receiver program, rewritten on the heartbeat and on a price move
// unless the scenario halted it (then it goes stale, as a feed whose
// pusher stopped does).
type pythFeed struct {
	id      prices.FeedID
	account solana.PublicKey
	halted  bool
	price   float64   // the price last pushed
	at      time.Time // when it was last pushed; zero before the first push
}

// loopInfo is one loop record of the scenario: the pair, and the figures the scenario fixes (nil:
// computed from the loop's loans at each request).
type loopInfo struct {
	market.Loop
	principal, collateral *mintInfo
	deposited, wAvgApy    *float64
}

// dexByName returns the simulator's CLMM program of a layout name.
func dexByName(name string) (dexInfo, bool) {
	switch name {
	case clmm.DexA:
		return dexInfo{Name: clmm.DexA, Program: ids.DexAProgramID, Layout: clmm.LayoutA()}, true
	case clmm.DexB:
		return dexInfo{Name: clmm.DexB, Program: ids.DexBProgramID, Layout: clmm.LayoutB()}, true
	}
	return dexInfo{}, false
}
