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
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// chainState reads and writes the market's accounts on chain, decoded: loans, strategies, requests,
// CLMM positions and pools.
type chainState struct{ chain *chainsim.Chain }

// errMissing is returned by the update helpers when the account does not exist.
var errMissing = errors.New("account does not exist")

// updateData rewrites an existing account's data atomically on chain.
func (cs chainState) updateData(key solana.PublicKey, f func(data []byte) ([]byte, error)) error {
	return cs.chain.State.UpdateAccount(key, func(a svm.Account, ok bool) (svm.Account, error) {
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

// updateStrategy changes a strategy account.
func (cs chainState) updateStrategy(strat *programs.Strategy, f func(*state.Strategy)) error {
	return cs.updateData(strat.Address, func(data []byte) ([]byte, error) {
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
// left alone. The caller holds the market's lock.
func (cs chainState) fillRequest(r *programs.Request, amount uint64) error {
	filled := min(r.Requested, r.Filled+amount)
	err := cs.updateData(r.Address, func(data []byte) ([]byte, error) {
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

// loan reads a loan's account.
func (cs chainState) loan(l *programs.Loan) (*state.Loan, error) {
	a, ok := cs.chain.State.Account(l.Address)
	if !ok {
		return nil, fmt.Errorf("loan %s: %w", l.Address, errMissing)
	}
	return state.DecodeLoan(a.Data)
}

// strategy reads a strategy's account.
func (cs chainState) strategy(st *programs.Strategy) (*state.Strategy, error) {
	a, ok := cs.chain.State.Account(st.Address)
	if !ok {
		return nil, fmt.Errorf("strategy %s: %w", st.Address, errMissing)
	}
	return state.DecodeStrategy(a.Data)
}

// position reads a position and its pool from chain.
func (cs chainState) position(pos *programs.Position) (clmm.Position, clmm.Pool, error) {
	pa, ok := cs.chain.State.Account(pos.Address)
	if !ok {
		return clmm.Position{}, clmm.Pool{}, fmt.Errorf("position %s: %w", pos.Address, errMissing)
	}
	ps, err := pos.Pool.Dex.Layout.DecodePosition(pa.Data)
	if err != nil {
		return clmm.Position{}, clmm.Pool{}, err
	}
	pool, err := cs.pool(pos.Pool)
	return ps, pool, err
}

// pool reads a pool account.
func (cs chainState) pool(pool *programs.Pool) (clmm.Pool, error) {
	a, ok := cs.chain.State.Account(pool.Address)
	if !ok {
		return clmm.Pool{}, fmt.Errorf("pool %s: %w", pool.Address, errMissing)
	}
	return pool.Dex.Layout.DecodePool(a.Data)
}

// request reads a request account; ok is false once the request was claimed (closed).
func (cs chainState) request(r *programs.Request) (state.Request, bool) {
	a, exists := cs.chain.State.Account(r.Address)
	if !exists {
		return state.Request{}, false
	}
	st, err := state.DecodeRequest(a.Data)
	return st, err == nil
}

// swapPool runs a swap in pool at unix time when: reward growth brought up to date, fees paid at the active liquidity, then,
// when move is set, the price moves to tick (sqrt price sqrt), crossing the
// initialized ticks in between. The pool and the tick arrays it crosses
// change in one step.
func (cs chainState) swapPool(pool *programs.Pool, when, fee0, fee1 uint64, move bool, tick int32, sqrt clmm.U128) error {
	cur, err := cs.pool(pool)
	if err != nil {
		return err
	}
	b := pool.Book()
	var starts []int32
	if move {
		starts = b.StartsBetween(min(cur.TickCurrent, tick), max(cur.TickCurrent, tick))
	}
	keys := []solana.PublicKey{pool.Address}
	for _, st := range starts {
		keys = append(keys, b.Address(st))
	}
	return cs.chain.State.UpdateAccounts(keys, func(accts []svm.Account, exists []bool) ([]svm.Account, error) {
		st, err := pool.Dex.Layout.DecodePool(accts[0].Data)
		if err != nil {
			return nil, err
		}
		if st.TickCurrent != cur.TickCurrent {
			return nil, errors.New("the pool's tick changed during the swap")
		}
		for i, start := range starts {
			if err := b.Load(start, accts[i+1].Data); err != nil {
				return nil, err
			}
		}
		programs.AccrueRewards(&st, when)
		programs.Accrue(&st, fee0, fee1)
		if move {
			programs.CrossTo(&st, b, tick)
			st.SqrtPriceX64 = sqrt
		}
		accts[0].Data = pool.Dex.Layout.EncodePool(st)
		for i, start := range starts {
			if exists[i+1] {
				accts[i+1].Data = b.Encode(start)
			}
		}
		return accts, nil
	})
}

// earnFees (a swap at unix time when) raises pool's fee growth so that pos, which must be in range,
// accrues fee0 and fee1 more (rounding the growth up, so it accrues at
// least that); other positions in range accrue their share. The position
// account does not change.
func (cs chainState) earnFees(pos *programs.Position, when, fee0, fee1 uint64) error {
	keys := []solana.PublicKey{pos.Pool.Address, pos.Address}
	layout := pos.Pool.Dex.Layout
	return cs.chain.State.UpdateAccounts(keys, func(accts []svm.Account, _ []bool) ([]svm.Account, error) {
		st, err := layout.DecodePool(accts[0].Data)
		if err != nil {
			return nil, err
		}
		ps, err := layout.DecodePosition(accts[1].Data)
		if err != nil {
			return nil, err
		}
		if !ps.InRange(st) || ps.Liquidity.IsZero() {
			return nil, fmt.Errorf("position %s is out of range (tick %d, range %s) or empty: it earns no fees", pos.Name, st.TickCurrent, ps.Range)
		}
		programs.AccrueRewards(&st, when)
		st.FeeGrowthGlobal0 = st.FeeGrowthGlobal0.Add(programs.GrowthPer(fee0, ps.Liquidity, true))
		st.FeeGrowthGlobal1 = st.FeeGrowthGlobal1.Add(programs.GrowthPer(fee1, ps.Liquidity, true))
		accts[0].Data = layout.EncodePool(st)
		return accts, nil
	})
}

// eventSim is the simulator as scenario events act on it.
type eventSim struct{ wd *world }

// Catalog returns the market's catalogue.
func (e eventSim) Catalog() *programs.Catalog { return e.wd.w }

// Chain returns the chain.
func (e eventSim) Chain() *chainsim.Chain { return e.wd.chain }

// Clock returns the simulator's clock.
func (e eventSim) Clock() chainsim.Clock { return e.wd.clock }

// Start returns the simulator's start.
func (e eventSim) Start() time.Time { return e.wd.start }

// ChangeAMM changes an AMM pool of the swap program behind the Jupiter API.
func (e eventSim) ChangeAMM(ev scenario.AMMEvent) error {
	_, err := e.wd.amms.change(ev)
	return err
}

// FillRequest fills a queued earn withdrawal by amount.
func (e eventSim) FillRequest(r *programs.Request, amount uint64) error {
	return e.wd.accts.fillRequest(r, amount)
}

// UpdateStrategyAccount changes a strategy's account with f.
func (e eventSim) UpdateStrategyAccount(strat *programs.Strategy, f func(*state.Strategy)) error {
	return e.wd.accts.updateStrategy(strat, f)
}

// EarnFees raises a position's pool fee growth as swaps paying fee0 and fee1 would.
func (e eventSim) EarnFees(pos *programs.Position, when, fee0, fee1 uint64) error {
	return e.wd.accts.earnFees(pos, when, fee0, fee1)
}

// SwapPool moves a pool as a swap would.
func (e eventSim) SwapPool(pool *programs.Pool, when, fee0, fee1 uint64, move bool, tick int32, sqrt clmm.U128) error {
	return e.wd.accts.swapPool(pool, when, fee0, fee1, move, tick, sqrt)
}
