package sim

import (
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
)

// swapPool runs a swap in pool at unix time when: reward growth brought up to date, fees paid at the active liquidity, then,
// when move is set, the price moves to tick (sqrt price sqrt), crossing the
// initialized ticks in between. The pool and the tick arrays it crosses
// change in one step.
func (s *Sim) swapPool(pool *programs.Pool, when, fee0, fee1 uint64, move bool, tick int32, sqrt clmm.U128) error {
	cur, err := s.poolState(pool)
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
	return s.chain.State.UpdateAccounts(keys, func(accts []svm.Account, exists []bool) ([]svm.Account, error) {
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
func (s *Sim) earnFees(pos *programs.Position, when, fee0, fee1 uint64) error {
	keys := []solana.PublicKey{pos.Pool.Address, pos.Address}
	layout := pos.Pool.Dex.Layout
	return s.chain.State.UpdateAccounts(keys, func(accts []svm.Account, _ []bool) ([]svm.Account, error) {
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

// tickArrayKeys returns the tick-array accounts of a range's lower and
// upper ticks in pool.
func tickArrayKeys(pool *programs.Pool, r clmm.Range) (lower, upper solana.PublicKey) {
	b := pool.Book()
	return b.Address(b.Start(r.Lower)), b.Address(b.Start(r.Upper))
}

// PositionTicks returns the position of mint, its pool and the ticks at its lower and upper bounds,
// read together from chain (position, pool and both tick arrays at one instant).
func (s *Sim) PositionTicks(mint solana.PublicKey) (clmm.Position, clmm.Pool, [2]clmm.Tick, error) {
	var ticks [2]clmm.Tick
	pos, ok := s.w.PosByMint[mint]
	if !ok {
		return clmm.Position{}, clmm.Pool{}, ticks, fmt.Errorf("sim: unknown position mint %s", mint)
	}
	ps, pool, err := s.positionState(pos)
	if err != nil {
		return ps, pool, ticks, err
	}
	lo, up := tickArrayKeys(pos.Pool, ps.Range)
	accts, exists := s.chain.State.Accounts([]solana.PublicKey{pos.Address, pos.Pool.Address, lo, up})
	layout := pos.Pool.Dex.Layout
	if ps, err = layout.DecodePosition(accts[0].Data); err != nil {
		return ps, pool, ticks, err
	}
	if pool, err = layout.DecodePool(accts[1].Data); err != nil {
		return ps, pool, ticks, err
	}
	b := pos.Pool.Book()
	for i, tick := range []int32{ps.Range.Lower, ps.Range.Upper} {
		if !exists[2+i] {
			return ps, pool, ticks, fmt.Errorf("sim: tick array of tick %d: %w", tick, errMissing)
		}
		if err := b.Load(b.Start(tick), accts[2+i].Data); err != nil {
			return ps, pool, ticks, err
		}
		ticks[i] = *b.Tick(tick)
	}
	return ps, pool, ticks, nil
}

// PositionOwed returns what the position of mint is owed at the current chain state, computed from
// its pool and tick arrays by its program's arithmetic: what a claim made now would pay.
func (s *Sim) PositionOwed(mint solana.PublicKey) (clmm.Owed, error) {
	pos, pool, ticks, err := s.PositionTicks(mint)
	if err != nil {
		return clmm.Owed{}, err
	}
	return s.w.PosByMint[mint].Pool.Dex.Layout.Owed(pool, pos, ticks[0], ticks[1])
}
