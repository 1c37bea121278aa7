package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// amms are the scenario's AMM pools: their on-chain accounts hold the truth (reserves are the pool's
// token balances, the swaps it executed its record); this keeps what the Jupiter API needs beside it
// (mints, the quote skew, the hostile mode and whether it quotes ExactOut). mu guards pools and each
// pool's spec, which events and the control route change.
type amms struct {
	chain *chainsim.Chain
	mu    sync.Mutex
	pools []*ammPool
}

// ammPool is one pool.
type ammPool struct {
	spec        scenario.AMMSpec
	addr        solana.PublicKey
	base, quote *programs.Mint
}

// deployAMMs validates the scenario's AMM specs, registers the swap program and creates the pools
// with their reserves.
func deployAMMs(chain *chainsim.Chain, w *programs.Catalog, specs []scenario.AMMSpec) (*amms, error) {
	a := &amms{chain: chain}
	if err := chain.Setup.RegisterProgram(ids.SwapProgramID, svm.ProgramFunc(programs.ExecuteSwap)); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, s := range specs {
		base, quote := w.MintBySym[s.Base], w.MintBySym[s.Quote]
		switch {
		case s.Name == "" || seen[s.Name]:
			return nil, fmt.Errorf("amms[%d].name %q: empty or repeated", i, s.Name)
		case base == nil || quote == nil || base == quote:
			return nil, fmt.Errorf("amms[%d]: base %q and quote %q must be two mints of the scenario", i, s.Base, s.Quote)
		case !(s.BaseReserve > 0) || s.Price < 0 || s.FeeBps >= 10000 || s.QuoteSkewBps <= -10000:
			return nil, fmt.Errorf("amms[%d]: base_reserve must be positive, price not negative, fee_bps below 10000, quote_skew_bps above -10000", i)
		case s.Hostile != "" && s.Hostile != scenario.AMMHostileStrangerOutput && s.Hostile != scenario.AMMHostileHiddenProgram:
			return nil, fmt.Errorf("amms[%d].hostile %q is not %s or %s", i, s.Hostile, scenario.AMMHostileStrangerOutput, scenario.AMMHostileHiddenProgram)
		}
		seen[s.Name] = true
		p := &ammPool{spec: s, addr: ids.AMMPool(s.Name), base: base, quote: quote}
		chain.State.SetAccount(p.addr, svm.Account{Lamports: svm.RentExemptMinimum(ammRecordRoom), Owner: ids.SwapProgramID,
			Data: programs.EncodeAMMPool(programs.AMMPool{Name: s.Name, MintA: base.Address.String(), MintB: quote.Address.String(), FeeBps: s.FeeBps})})
		for _, m := range []*programs.Mint{base, quote} {
			if err := chain.Setup.MintTo(p.addr, m.Address, 0); err != nil {
				return nil, fmt.Errorf("amms[%d]: %w", i, err)
			}
		}
		price := s.Price
		if price == 0 {
			bp, _ := w.Price(base.Address)
			qp, _ := w.Price(quote.Address)
			if !(bp > 0 && qp > 0) {
				return nil, fmt.Errorf("amms[%d]: price 0 needs oracle prices of %s and %s", i, s.Base, s.Quote)
			}
			price = bp / qp
		}
		if err := a.setReserves(p, s.BaseReserve, price); err != nil {
			return nil, fmt.Errorf("amms[%d]: %w", i, err)
		}
		a.pools = append(a.pools, p)
	}
	return a, nil
}

// ammRecordRoom is the pool record's room for rent: its data grows as its swap count does.
const ammRecordRoom = 512

// SetAMM sets pool name's depth and price: its base reserve in whole tokens and its price in quote
// per base. A test scripts a moved price or a thin pool with it between a quote and its swap; a
// scenario does so with an amm event, another process with POST /_sim/amm. (The mints' supplies do
// not follow: the simulator keeps no supply invariant for pools.)
func (s *Sim) SetAMM(name string, baseReserve, price float64) error {
	if !(baseReserve > 0 && price > 0) {
		return fmt.Errorf("sim: AMM pool %q: reserve and price must be positive", name)
	}
	_, err := s.amms.change(scenario.AMMEvent{Name: name, BaseReserve: baseReserve, Price: price})
	return err
}

// AMMState is an AMM pool as it stands: its reserves in whole tokens, its price (quote per base),
// its quote skew and how many swaps it executed.
type AMMState struct {
	Name         string  `json:"name"`
	BaseReserve  float64 `json:"base_reserve"`
	QuoteReserve float64 `json:"quote_reserve"`
	Price        float64 `json:"price"`
	QuoteSkewBps int     `json:"quote_skew_bps"`
	Swaps        uint64  `json:"swaps"`
}

// AMMs returns every AMM pool as it stands, by name.
func (s *Sim) AMMs() map[string]AMMState {
	out := map[string]AMMState{}
	s.amms.mu.Lock()
	pools := slices.Clone(s.amms.pools)
	s.amms.mu.Unlock()
	for _, p := range pools {
		out[p.spec.Name] = s.amms.state(p)
	}
	return out
}

// change applies ev to its pool and returns the pool as it then stands: the reserves for the
// base reserve and price it sets (each kept from the chain when unset), the quote skew it sets.
func (a *amms) change(ev scenario.AMMEvent) (AMMState, error) {
	p := a.pool(ev.Name)
	if p == nil {
		return AMMState{}, fmt.Errorf("sim: no AMM pool %q", ev.Name)
	}
	if err := ev.Check(); err != nil {
		return AMMState{}, fmt.Errorf("sim: AMM pool %q: %w", ev.Name, err)
	}
	if ev.BaseReserve > 0 || ev.Price > 0 {
		now := a.state(p)
		base, price := cmp.Or(ev.BaseReserve, now.BaseReserve), cmp.Or(ev.Price, now.Price)
		if err := a.setReserves(p, base, price); err != nil {
			return AMMState{}, fmt.Errorf("sim: AMM pool %q: %w", ev.Name, err)
		}
	}
	if ev.QuoteSkewBps != nil {
		a.mu.Lock()
		p.spec.QuoteSkewBps = *ev.QuoteSkewBps
		a.mu.Unlock()
	}
	return a.state(p), nil
}

// state reads p as it stands on chain.
func (a *amms) state(p *ammPool) AMMState {
	b, q := a.reserves(p, p.base.Address, p.quote.Address)
	st := AMMState{Name: p.spec.Name, BaseReserve: float64(b) / math.Pow10(int(p.base.Decimals)),
		QuoteReserve: float64(q) / math.Pow10(int(p.quote.Decimals)), QuoteSkewBps: a.spec(p).QuoteSkewBps}
	if st.BaseReserve > 0 {
		st.Price = st.QuoteReserve / st.BaseReserve
	}
	if acct, ok := a.chain.State.Account(p.addr); ok {
		if rec, err := programs.DecodeAMMPool(acct.Data); err == nil {
			st.Swaps = rec.Swaps
		}
	}
	return st
}

// spec returns p's spec as it stands.
func (a *amms) spec(p *ammPool) scenario.AMMSpec {
	a.mu.Lock()
	defer a.mu.Unlock()
	return p.spec
}

// pool returns the pool named name, or nil.
func (a *amms) pool(name string) *ammPool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range a.pools {
		if p.spec.Name == name {
			return p
		}
	}
	return nil
}

// setReserves writes p's reserves for baseReserve whole base tokens at price.
func (a *amms) setReserves(p *ammPool, baseReserve, price float64) error {
	b := baseReserve * math.Pow10(int(p.base.Decimals))
	q := baseReserve * price * math.Pow10(int(p.quote.Decimals))
	if b >= math.MaxUint64/2 || q >= math.MaxUint64/2 || b < 1 || q < 1 {
		return fmt.Errorf("reserves %g and %g are out of range", b, q)
	}
	for _, r := range []struct {
		mint   solana.PublicKey
		amount uint64
	}{{p.base.Address, uint64(b)}, {p.quote.Address, uint64(q)}} {
		ata, _ := svm.AssociatedTokenAddress(p.addr, r.mint)
		err := a.chain.State.UpdateAccount(ata, func(acct svm.Account, exists bool) (svm.Account, error) {
			t, err := svm.TokenAccountOf(acct)
			if err != nil || !exists {
				return acct, fmt.Errorf("pool token account %s: %v", ata, err)
			}
			t.Amount = r.amount
			acct.Data = t.Encode()
			return acct, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// reserves returns p's reserves of mintIn and mintOut as the chain holds them now.
func (a *amms) reserves(p *ammPool, mintIn, mintOut solana.PublicKey) (uint64, uint64) {
	return a.chain.State.TokenBalance(p.addr, mintIn), a.chain.State.TokenBalance(p.addr, mintOut)
}

// route returns the pool that trades in for out, or nil.
func (a *amms) route(in, out solana.PublicKey) *ammPool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range a.pools {
		if (p.base.Address == in && p.quote.Address == out) || (p.base.Address == out && p.quote.Address == in) {
			return p
		}
	}
	return nil
}
