package sim

import (
	"fmt"
	"math"
	"sync"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// amms are the scenario's AMM pools: their on-chain accounts hold the truth (reserves are the pool's
// token balances); this keeps what the Jupiter API needs beside it (mints, the quote skew and the
// hostile mode), guarded by mu.
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
		chain.State.SetAccount(p.addr, svm.Account{Lamports: 1_000_000, Owner: ids.SwapProgramID,
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

// SetAMM sets pool name's depth and price: its base reserve in whole tokens and its price in quote
// per base. A scenario scripts a moved price or a thin pool with it between a quote and its swap.
// (The mints' supplies do not follow: the simulator keeps no supply invariant for pools.)
func (s *Sim) SetAMM(name string, baseReserve, price float64) error {
	p := s.amms.pool(name)
	if p == nil {
		return fmt.Errorf("sim: no AMM pool %q", name)
	}
	if !(baseReserve > 0 && price > 0) {
		return fmt.Errorf("sim: AMM pool %q: reserve and price must be positive", name)
	}
	return s.amms.setReserves(p, baseReserve, price)
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
