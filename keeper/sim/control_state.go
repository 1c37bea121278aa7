package sim

import (
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
)

// ControlState is the answer of GET /_sim/state: what an end-to-end test checks after keeper acted.
// Things are keyed by their scenario names; amounts are base units of their mint.
type ControlState struct {
	// Now is the sim clock's time, Elapsed the seconds since the simulator's start.
	Now     time.Time `json:"now"`
	Elapsed float64   `json:"elapsed"`
	// Slot is the chain's current slot.
	Slot uint64 `json:"slot"`
	// PendingEvents is how many scenario events have not run yet.
	PendingEvents int `json:"pending_events"`
	// Traffic is the count of RPC and Jito requests served so far (see AdvanceRequest.AfterTraffic).
	Traffic uint64 `json:"traffic"`
	// MarketRequests is the count of market API requests served so far (control routes excluded).
	MarketRequests uint64 `json:"market_requests"`
	// Subscriptions is how many pubsub subscriptions are open on the RPC port.
	Subscriptions int `json:"subscriptions"`
	// Wallet is the operator's wallet.
	Wallet ControlWallet `json:"wallet"`
	// TipAccounts are the block engine's tip accounts, as getTipAccounts answers (a test reading them
	// here spends none of the engine's rate limit).
	TipAccounts []string `json:"tip_accounts"`
	// Loans, Positions and Strategies are keyed by name; Requests by "earn-vault/request".
	Loans      map[string]ControlLoan     `json:"loans"`
	Positions  map[string]ControlPosition `json:"positions"`
	Requests   map[string]ControlRequest  `json:"requests"`
	Strategies map[string]ControlStrategy `json:"strategies"`
	// AMMs are the pools behind the simulator's Jupiter API, by name: reserves, price, quote skew and
	// the swaps each executed (a sale of collateral is one swap).
	AMMs map[string]AMMState `json:"amms,omitempty"`
	// Signed lists, in landing order, every landed transaction that the operator's wallet signed since
	// the Control was made.
	Signed []SignedTx `json:"signed"`
	// Service is the services' own time on the answers they gave, keyed by service and method:
	// "market build_loan", "rpc sendTransaction", "jito sendBundle". It counts the work between the
	// request's injected latency and the answer (what a benchmark's floor owes the server, not the
	// client); answers replaced by a fault are not counted.
	Service map[string]ServiceTime `json:"service,omitempty"`
}

// ServiceTime is a service's own time on the answers to one method.
type ServiceTime struct {
	// Answers is how many answers it gave; Seconds the time it worked on them, in all;
	// LatencySeconds the time an injected latency held their requests back, in all, as measured
	// (a timer wakes a little after the latency asked for).
	Answers        uint64  `json:"answers"`
	Seconds        float64 `json:"seconds"`
	LatencySeconds float64 `json:"latency_seconds,omitempty"`
}

// Mean returns the service's mean time per answer, or 0 for none.
func (s ServiceTime) Mean() time.Duration {
	if s.Answers == 0 {
		return 0
	}
	return time.Duration(s.Seconds / float64(s.Answers) * float64(time.Second))
}

// MeanLatency returns the mean injected latency per answer, or 0 for none.
func (s ServiceTime) MeanLatency() time.Duration {
	if s.Answers == 0 {
		return 0
	}
	return time.Duration(s.LatencySeconds / float64(s.Answers) * float64(time.Second))
}

// ControlWallet is the operator wallet's balances on chain.
type ControlWallet struct {
	Address  string `json:"address"`
	Lamports uint64 `json:"lamports"`
	// Tokens maps every scenario mint's symbol to the wallet's balance (its associated token account).
	Tokens map[string]uint64 `json:"tokens"`
}

// ControlLoan is one loan as loans-info shows it now.
type ControlLoan struct {
	Address  string `json:"address"`
	Borrower string `json:"borrower"`
	// Active is false once the loan is closed or has no debt.
	Active bool `json:"active"`
	// Health is the loan's health by the rule docs/policies.md gives (the health fact), at the sim clock's time:
	// 1 − debt / liquidation capacity, the minimum over ledgers with debt.
	Health float64 `json:"health"`
	// Outstanding and Repaid sum the principal outstanding and repaid over the ledgers.
	Outstanding uint64 `json:"outstanding"`
	Repaid      uint64 `json:"repaid"`
}

// ControlPosition is one CLMM position and its pool as their accounts hold them now.
type ControlPosition struct {
	// Address is the position account; Mint the position (NFT) mint it derives from.
	Address     string `json:"address"`
	Mint        string `json:"mint"`
	Pool        string `json:"pool"`
	LowerTick   int32  `json:"lower_tick"`
	UpperTick   int32  `json:"upper_tick"`
	PoolTick    int32  `json:"pool_tick"`
	TickSpacing uint16 `json:"tick_spacing"`
	InRange     bool   `json:"in_range"`
	Liquidity   string `json:"liquidity"`
	// FeesOwed0 and FeesOwed1 are what a claim made now pays: stored plus accrued since the position
	// was last touched, by its program's arithmetic. FeesStored0 and FeesStored1 are what the
	// position account stores.
	FeesOwed0   uint64 `json:"fees_owed_0"`
	FeesOwed1   uint64 `json:"fees_owed_1"`
	FeesStored0 uint64 `json:"fees_stored_0"`
	FeesStored1 uint64 `json:"fees_stored_1"`
	// Growth holds the raw fee accounting the owed fees derive from.
	Growth ControlGrowth `json:"growth"`
}

// ControlGrowth is a position's fee accounting as its accounts hold it: Q64.64 u128 values in
// decimal, per token (index 0 and 1).
type ControlGrowth struct {
	Global       [2]string `json:"global"`        // the pool's fee_growth_global
	LowerOutside [2]string `json:"lower_outside"` // the lower tick's fee_growth_outside
	UpperOutside [2]string `json:"upper_outside"` // the upper tick's fee_growth_outside
	Checkpoint   [2]string `json:"checkpoint"`    // the position's fee growth checkpoint
	// LowerIndex and UpperIndex are the ticks' indices as the program compares them (dex-a: stored
	// in the tick); LowerInitialized and UpperInitialized their initialized state.
	LowerIndex       int32 `json:"lower_index"`
	UpperIndex       int32 `json:"upper_index"`
	LowerInitialized bool  `json:"lower_initialized"`
	UpperInitialized bool  `json:"upper_initialized"`
}

// ControlRequest is one queued earn withdrawal.
type ControlRequest struct {
	Address   string `json:"address"`
	Wallet    string `json:"wallet"`
	Requested uint64 `json:"requested"`
	Filled    uint64 `json:"filled"`
	Claimed   uint64 `json:"claimed"`
	// Open is false once the request was claimed (its account closed).
	Open bool `json:"open"`
}

// ControlStrategy is one lending strategy's authority, idle principal and terms.
type ControlStrategy struct {
	Address   string `json:"address"`
	Authority string `json:"authority"`
	// Idle is the principal the strategy holds (its token account's balance).
	Idle uint64 `json:"idle"`
	// Terms maps a collateral (a mint symbol, a pool name, else its address) to its APYs in centi-basis
	// points by loan term, written as policies write it ("7 days").
	Terms map[string]map[string]int64 `json:"terms"`
}

// SignedTx is a landed transaction that the operator's wallet signed.
type SignedTx struct {
	Signature string    `json:"signature"`
	Slot      uint64    `json:"slot"`
	BlockTime time.Time `json:"block_time"`
	// SentAt is when it reached the chain: its RPC send served, or its bundle accepted by the
	// block engine. LandedAt is when the chain executed it (for an RPC send, when the send was
	// served; for a bundle, in the slot after its acceptance), and ConfirmedAt when it reached
	// confirmed: the end of its slot, when a block is built on it. NotifiedAt is when the RPC's
	// websocket started writing its first signature notification to a subscriber (a little after
	// ConfirmedAt: the slot's timer and the block's work come first); zero when nobody subscribed.
	SentAt      time.Time `json:"sent_at"`
	LandedAt    time.Time `json:"landed_at"`
	ConfirmedAt time.Time `json:"confirmed_at"`
	NotifiedAt  time.Time `json:"notified_at,omitzero"`
	Fee         uint64    `json:"fee"`
	// FeePayer is true when the wallet paid the fee.
	FeePayer bool `json:"fee_payer"`
	// Err is the instruction error of a transaction that landed failed; empty on success.
	Err string `json:"err,omitempty"`
	// BundleID is the Jito bundle it landed in, if any.
	BundleID string `json:"bundle_id,omitempty"`
}

// stateReport reads the market's state for GET /_sim/state: the wallet's balances, every loan's
// health, every CLMM position's range and fees, every withdrawal request and every strategy.
type stateReport struct {
	acc    *Accounts
	events *Events
}

// State returns what GET /_sim/state answers.
func (c *Control) State() (ControlState, error) {
	st, err := c.report.read()
	if err != nil {
		return ControlState{}, err
	}
	st.Traffic, st.MarketRequests = c.traffic.counts()
	st.Signed = c.traffic.signedTxs()
	st.Service = c.traffic.services()
	if amms := c.sim.AMMs(); len(amms) > 0 {
		st.AMMs = amms
	}
	for _, k := range c.sim.chain.Bundles.TipAccounts() {
		st.TipAccounts = append(st.TipAccounts, k.String())
	}
	return st, nil
}

// read returns the state without the traffic counts and the signed transactions.
func (c *stateReport) read() (ControlState, error) {
	s := c.acc
	now := s.clock.Now()
	st := ControlState{Now: now.UTC(), Elapsed: now.Sub(s.start).Seconds(), Slot: s.chain.Ledger.Slot(),
		PendingEvents: c.events.Pending(), Subscriptions: s.chain.Pubsub.Subscriptions(), Wallet: c.wallet(),
		Loans: map[string]ControlLoan{}, Positions: map[string]ControlPosition{},
		Requests: map[string]ControlRequest{}, Strategies: map[string]ControlStrategy{}}
	for _, l := range s.w.Loans {
		v, err := c.loan(l.Address, now)
		if err != nil {
			return ControlState{}, err
		}
		st.Loans[l.Name] = v
	}
	for _, p := range s.w.Positions {
		v, err := c.position(p)
		if err != nil {
			return ControlState{}, err
		}
		st.Positions[p.Name] = v
	}
	for _, e := range s.w.Earn {
		for _, r := range e.Requests {
			v, err := c.request(r)
			if err != nil {
				return ControlState{}, err
			}
			st.Requests[e.Name+"/"+r.Name] = v
		}
	}
	for _, si := range s.w.Strategies {
		v, err := c.strategy(si.Address)
		if err != nil {
			return ControlState{}, err
		}
		st.Strategies[si.Name] = v
	}
	return st, nil
}

// wallet returns the operator wallet's balances.
func (c *stateReport) wallet() ControlWallet {
	s := c.acc
	w := ControlWallet{Address: s.w.Wallet.String(), Lamports: s.Balance(s.w.Wallet), Tokens: map[string]uint64{}}
	for _, m := range s.w.Mints {
		w.Tokens[m.Symbol] = s.TokenBalance(s.w.Wallet, m.Address)
	}
	return w
}

// loan returns a loan's view, its health computed as keeper documents it.
func (c *stateReport) loan(addr solana.PublicKey, now time.Time) (ControlLoan, error) {
	item, err := c.acc.Loan(addr)
	if err != nil {
		return ControlLoan{}, err
	}
	v := ControlLoan{Address: addr.String(), Borrower: item.Loan.Borrower, Health: 1}
	usd := map[string]float64{}
	for _, b := range item.CollateralBreakdown {
		usd[b.AssetIdentifier] += b.Usd
	}
	for _, l := range item.Ledgers {
		outstanding := uint64(l.PrincipalDue) - min(uint64(l.PrincipalRepaid), uint64(l.PrincipalDue))
		v.Outstanding += outstanding
		v.Repaid += uint64(l.PrincipalRepaid)
		v.Active = v.Active || outstanding > 0
		h, err := c.ledgerHealth(item, l, outstanding, usd, now)
		if err != nil {
			return ControlLoan{}, fmt.Errorf("sim control: loan %s: %w", addr, err)
		}
		v.Health = min(v.Health, h)
	}
	v.Active = v.Active && !item.Loan.Closed
	return v, nil
}

// ledgerHealth is one ledger's health by the rule docs/policies.md gives (the health fact): 1 − debt / liquidation
// capacity, the debt being the outstanding principal, the interest owed and the interest still to
// accrue to the ledger's end in USD, the capacity the sum over collateral of its USD value × the
// ledger's weight × liquidation threshold for it. A ledger without debt is healthy (1).
func (c *stateReport) ledgerHealth(item apiwire.LoanItem, l apiwire.Ledger, outstanding uint64, usd map[string]float64, now time.Time) (float64, error) {
	remaining := max(0, float64(int64(l.EndTime)-now.Unix()))
	debt := float64(outstanding) + float64(l.InterestOutstanding) + float64(l.InterestPerSecond)*remaining
	if debt <= 0 {
		return 1, nil
	}
	price, ok := c.unitPrice(l.PrincipalMint)
	if !ok {
		return 0, fmt.Errorf("ledger %d: no price for %s", l.LedgerIndex, l.PrincipalMint)
	}
	capacity := 0.0
	for _, col := range item.Collateral {
		capacity += usd[col.AssetIdentifier] * ratioAt(l.Weights, col.Index) * ratioAt(l.LqtRatios, col.Index)
	}
	if capacity <= 0 {
		return 0, fmt.Errorf("ledger %d has debt but no collateral capacity", l.LedgerIndex)
	}
	return 1 - debt*price/capacity, nil
}

// ratioAt returns row[i] as a fraction, 0 outside the row.
func ratioAt(row []apiwire.CBPS, i int) float64 {
	if i < 0 || i >= len(row) {
		return 0
	}
	return float64(row[i]) / float64(apiwire.CBPSOne)
}

// unitPrice is the USD price of one base unit of a mint.
func (c *stateReport) unitPrice(mint string) (float64, bool) {
	k, err := solana.PublicKeyFromBase58(mint)
	if err != nil {
		return 0, false
	}
	m, ok := c.acc.w.MintByAddr[k]
	if !ok {
		return 0, false
	}
	p, ok := c.acc.Price(k)
	return p / units.Pow10(m.Decimals), ok
}

// position returns a CLMM position's view.
func (c *stateReport) position(p *programs.Position) (ControlPosition, error) {
	pos, pool, ticks, err := c.acc.PositionTicks(p.Mint)
	if err != nil {
		return ControlPosition{}, err
	}
	owed, err := p.Pool.Dex.Layout.Owed(pool, pos, ticks[0], ticks[1])
	if err != nil {
		return ControlPosition{}, err
	}
	lo, up := ticks[0], ticks[1]
	g := ControlGrowth{
		Global:       [2]string{pool.FeeGrowthGlobal0.String(), pool.FeeGrowthGlobal1.String()},
		LowerOutside: [2]string{lo.FeeGrowthOutside0.String(), lo.FeeGrowthOutside1.String()},
		UpperOutside: [2]string{up.FeeGrowthOutside0.String(), up.FeeGrowthOutside1.String()},
		Checkpoint:   [2]string{pos.FeeGrowthInside0.String(), pos.FeeGrowthInside1.String()},
		LowerIndex:   lo.Index, UpperIndex: up.Index, LowerInitialized: lo.Initialized, UpperInitialized: up.Initialized,
	}
	stored0, stored1 := pos.FeesOwed()
	return ControlPosition{Address: p.Address.String(), Mint: p.Mint.String(), Pool: p.Pool.Address.String(), LowerTick: pos.Range.Lower,
		UpperTick: pos.Range.Upper, PoolTick: pool.TickCurrent, TickSpacing: pool.TickSpacing,
		InRange: pos.InRange(pool), Liquidity: pos.Liquidity.String(), FeesOwed0: owed.Fees0, FeesOwed1: owed.Fees1,
		FeesStored0: stored0, FeesStored1: stored1, Growth: g}, nil
}

// request returns a withdrawal request's view.
func (c *stateReport) request(r *programs.Request) (ControlRequest, error) {
	wr, err := c.acc.WithdrawalRequest(r.Address)
	if err != nil {
		return ControlRequest{}, err
	}
	_, open := c.acc.accts.request(r)
	return ControlRequest{Address: wr.RequestID, Wallet: wr.Wallet, Requested: uint64(wr.RequestedAmount),
		Filled: uint64(wr.FilledAmount), Claimed: uint64(wr.ClaimedAmount), Open: open}, nil
}

// strategy returns a strategy's view, collaterals named as the scenario names them.
func (c *stateReport) strategy(addr solana.PublicKey) (ControlStrategy, error) {
	vs, err := c.acc.Strategy(addr)
	if err != nil {
		return ControlStrategy{}, err
	}
	v := ControlStrategy{Address: vs.Strategy.Address, Authority: vs.Strategy.Authority,
		Idle: uint64(vs.Strategy.TokenBalance), Terms: map[string]map[string]int64{}}
	for _, t := range vs.CollateralTerms {
		apys := map[string]int64{}
		for k, apy := range t.DurationsAndApys {
			d, err := apiwire.ParseDurationKey(k)
			if err != nil {
				return ControlStrategy{}, fmt.Errorf("sim control: strategy %s: %w", addr, err)
			}
			apys[d.String()] = int64(apy)
		}
		v.Terms[c.assetName(t.AssetIdentifier)] = apys
	}
	return v, nil
}

// assetName names a collateral identifier: a mint's symbol, a pool's name, else the identifier.
func (c *stateReport) assetName(id string) string {
	k, err := solana.PublicKeyFromBase58(id)
	if err != nil {
		return id
	}
	if m, ok := c.acc.w.MintByAddr[k]; ok {
		return m.Symbol
	}
	if p, ok := c.acc.w.PoolByAddr[k]; ok {
		return p.Name
	}
	return id
}
