package sim

import (
	"time"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
)

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
