package sim

import (
	"errors"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
)

// errMissing is returned by the update helpers when the account does not exist.
var errMissing = errors.New("account does not exist")

// updateData rewrites an existing account's data atomically on chain.
func (s *Sim) updateData(key solana.PublicKey, f func(data []byte) ([]byte, error)) error {
	return s.chain.State.UpdateAccount(key, func(a svm.Account, ok bool) (svm.Account, error) {
		if !ok || len(a.Data) == 0 {
			return a, errMissing
		}
		data, err := f(a.Data)
		if err != nil {
			return a, err
		}
		a.Data = data
		return a, nil
	})
}

// updateStrategyAccount changes a strategy account.
func (s *Sim) updateStrategyAccount(strat *programs.Strategy, f func(*state.Strategy)) error {
	return s.updateData(strat.Address, func(data []byte) ([]byte, error) {
		st, err := state.DecodeStrategy(data)
		if err != nil {
			return nil, err
		}
		f(st)
		st.WriteVersion++
		return state.EncodeStrategy(st)
	})
}

// fillRequest fills amount more of a request, up to what was requested. A claimed (closed) request is
// left alone. The caller holds s.mu.
func (s *Sim) fillRequest(r *programs.Request, amount uint64) error {
	filled := min(r.Requested, r.Filled+amount)
	err := s.updateData(r.Address, func(data []byte) ([]byte, error) {
		st, err := state.DecodeRequest(data)
		if err != nil {
			return nil, err
		}
		st.Filled = filled
		return st.Encode(), nil
	})
	switch {
	case errors.Is(err, errMissing):
		return nil
	case err != nil:
		return fmt.Errorf("fill request %s: %w", r.Name, err)
	}
	r.Filled = filled
	return nil
}

// loanState reads a loan's account.
func (s *Sim) loanState(l *programs.Loan) (*state.Loan, error) {
	a, ok := s.chain.State.Account(l.Address)
	if !ok {
		return nil, fmt.Errorf("loan %s: %w", l.Address, errMissing)
	}
	return state.DecodeLoan(a.Data)
}

// strategyState reads a strategy's account.
func (s *Sim) strategyState(st *programs.Strategy) (*state.Strategy, error) {
	a, ok := s.chain.State.Account(st.Address)
	if !ok {
		return nil, fmt.Errorf("strategy %s: %w", st.Address, errMissing)
	}
	return state.DecodeStrategy(a.Data)
}

// positionState reads a position and its pool from chain.
func (s *Sim) positionState(pos *programs.Position) (clmm.Position, clmm.Pool, error) {
	pa, ok := s.chain.State.Account(pos.Address)
	if !ok {
		return clmm.Position{}, clmm.Pool{}, fmt.Errorf("position %s: %w", pos.Address, errMissing)
	}
	ps, err := pos.Pool.Dex.Layout.DecodePosition(pa.Data)
	if err != nil {
		return clmm.Position{}, clmm.Pool{}, err
	}
	pool, err := s.poolState(pos.Pool)
	return ps, pool, err
}

// poolState reads a pool account.
func (s *Sim) poolState(pool *programs.Pool) (clmm.Pool, error) {
	a, ok := s.chain.State.Account(pool.Address)
	if !ok {
		return clmm.Pool{}, fmt.Errorf("pool %s: %w", pool.Address, errMissing)
	}
	return pool.Dex.Layout.DecodePool(a.Data)
}

// requestState reads a request account; ok is false once the request was claimed (closed).
func (s *Sim) requestState(r *programs.Request) (state.Request, bool) {
	a, exists := s.chain.State.Account(r.Address)
	if !exists {
		return state.Request{}, false
	}
	st, err := state.DecodeRequest(a.Data)
	return st, err == nil
}

// eventSim is the simulator as scenario events act on it.
type eventSim struct{ s *Sim }

// Catalog returns the market's catalogue.
func (e eventSim) Catalog() *programs.Catalog { return e.s.w }

// Chain returns the chain.
func (e eventSim) Chain() *chainsim.Chain { return e.s.chain }

// Clock returns the simulator's clock.
func (e eventSim) Clock() chainsim.Clock { return e.s.clock }

// Start returns the simulator's start.
func (e eventSim) Start() time.Time { return e.s.start }

// FillRequest fills a queued earn withdrawal by amount.
func (e eventSim) FillRequest(r *programs.Request, amount uint64) error {
	return e.s.fillRequest(r, amount)
}

// UpdateStrategyAccount changes a strategy's account with f.
func (e eventSim) UpdateStrategyAccount(strat *programs.Strategy, f func(*state.Strategy)) error {
	return e.s.updateStrategyAccount(strat, f)
}

// EarnFees raises a position's pool fee growth as swaps paying fee0 and fee1 would.
func (e eventSim) EarnFees(pos *programs.Position, when, fee0, fee1 uint64) error {
	return e.s.earnFees(pos, when, fee0, fee1)
}

// SwapPool moves a pool as a swap would.
func (e eventSim) SwapPool(pool *programs.Pool, when, fee0, fee1 uint64, move bool, tick int32, sqrt clmm.U128) error {
	return e.s.swapPool(pool, when, fee0, fee1, move, tick, sqrt)
}
