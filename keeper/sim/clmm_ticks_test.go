package sim

import (
	"bytes"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
)

// crossScenario has one pool per tick-array format, each with a position around tick 0 and other
// providers' liquidity; the price leaves the range upwards and downwards and comes back, with swap
// fees paid at every stop.
const crossScenario = `
mints:
  - {symbol: AAA, decimals: 6, price: 1}
  - {symbol: BBB, decimals: 6, price: 1}
pools:
  - {name: pa, dex: dex-a, mint0: AAA, mint1: BBB, tick_spacing: 10, price: 1, liquidity: "3000000000"}
  - {name: pb, dex: dex-b, mint0: AAA, mint1: BBB, tick_spacing: 64, price: 1, liquidity: "3000000000"}
  - {name: pd, dex: dex-b, mint0: AAA, mint1: BBB, tick_spacing: 64, price: 1, liquidity: "3000000000", tick_arrays: dynamic}
positions:
  - {name: qa, pool: pa, lower_tick: -100, upper_tick: 100, liquidity: "1000000000", fees_1: "1"}
  - {name: qb, pool: pb, lower_tick: -128, upper_tick: 128, liquidity: "1000000000", fees_1: "1"}
  - {name: qd, pool: pd, lower_tick: -128, upper_tick: 128, liquidity: "1000000000", fees_1: "1"}
events:
`

// crossSteps are the swaps of every pool: fees paid (whole BBB) at the current tick, then the move.
var crossSteps = []struct {
	fees    string
	units   int64
	to      int32
	inRange bool // where the fees are paid
}{
	{"3", 3_000_000, 500, true}, {"5", 5_000_000, 0, false}, {"7", 7_000_000, -500, true},
	{"11", 11_000_000, 64, false}, {"13", 13_000_000, 1000, true}, {"17", 17_000_000, 0, false}, {"19", 19_000_000, 0, true},
}

func crossScenarioYAML() string {
	y := crossScenario
	for i, st := range crossSteps {
		for _, p := range []string{"pa", "pb", "pd"} {
			y += fmt.Sprintf("  - {at: %ds, pool: {name: %s, fees_1: %q, tick: %d}}\n", (i+1)*10, p, st.fees, st.to)
		}
	}
	return y
}

// TestPoolsAccrueAndCrossTicks checks the simulator against the programs' fee accounting: the
// position's owed fees are exactly the fees paid while the price was in its range, shared by
// liquidity, whatever the tick-array format; the stored figure never moves; the tick-array
// accounts are in their real layouts.
func TestPoolsAccrueAndCrossTicks(t *testing.T) {
	sc, err := ParseScenario("cross.yaml", []byte(crossScenarioYAML()))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{Scenario: sc})
	e.advance(t, time.Duration(len(crossSteps)+1)*10*time.Second)
	const posL, otherL = 1_000_000_000, 3_000_000_000
	// Independent arithmetic: growth += floor(fee · 2^64 / active liquidity) while in range (the
	// other providers' liquidity is always active), owed = floor(L · Σ growth / 2^64).
	sum := new(big.Int)
	for _, st := range crossSteps {
		if st.inRange {
			g := new(big.Int).Lsh(big.NewInt(st.units), 64)
			sum.Add(sum, g.Quo(g, big.NewInt(posL+otherL)))
		}
	}
	want := new(big.Int).Rsh(new(big.Int).Mul(sum, big.NewInt(posL)), 64).Uint64() + 1_000_000
	for _, name := range []string{"qa", "qb", "qd"} {
		mint := e.addr(t, ids.KindPosition, name)
		owed, err := e.sim.Accounts().PositionOwed(mint)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if owed.Fees1 != want || owed.Fees0 != 0 {
			t.Errorf("%s: owed %d/%d, want 0/%d", name, owed.Fees0, owed.Fees1, want)
		}
		pos, pool, err := e.sim.Accounts().Position(mint)
		if err != nil {
			t.Fatal(err)
		}
		if pos.FeesOwed1 != 1_000_000 {
			t.Errorf("%s: stored %d changed without a touch", name, pos.FeesOwed1)
		}
		if pool.Liquidity != clmm.U128From64(posL+otherL) || pool.TickCurrent != 0 {
			t.Errorf("%s: pool liquidity %s at tick %d, want %d at 0", name, pool.Liquidity, pool.TickCurrent, posL+otherL)
		}
	}
	checkTickArrayAccounts(t, e)
}

// checkTickArrayAccounts checks the accounts at the tick-array addresses: layout A's 10240-byte
// TickArrayState, layout B's 9988-byte TickArray and a DynamicTickArray of 148 + 112 bytes per
// initialized tick (one in each of the two arrays).
func checkTickArrayAccounts(t *testing.T, e *env) {
	tests := []struct {
		pool string
		rng  clmm.Range
		size int
		disc string
	}{
		{"pa", clmm.Range{Lower: -100, Upper: 100}, 10240, "TickArrayState"},
		{"pb", clmm.Range{Lower: -128, Upper: 128}, 9988, "TickArray"},
		{"pd", clmm.Range{Lower: -128, Upper: 128}, 148 + 112, "DynamicTickArray"},
	}
	for _, tt := range tests {
		var pool *programs.Pool
		for _, p := range e.sim.w.Pools {
			if p.Name == tt.pool {
				pool = p
			}
		}
		lo, up := tickArrayKeys(pool, tt.rng)
		if lo == up {
			t.Fatalf("%s: one array holds both ticks; the test wants two", tt.pool)
		}
		for _, key := range []solana.PublicKey{lo, up} {
			a, ok := e.sim.Chain().State.Account(key)
			d := clmm.Discriminator(tt.disc)
			if !ok || a.Owner != pool.Dex.Program || len(a.Data) != tt.size || !bytes.Equal(a.Data[:8], d[:]) {
				t.Errorf("%s: tick array %s: exists %v, owner %s, %d bytes; want %d bytes of %s", tt.pool, key, ok, a.Owner, len(a.Data), tt.size, tt.disc)
			}
		}
	}
}

// TestPartialCheckpoint follows dex-b's update_fees_and_rewards (whirlpools,
// programs/whirlpool/src/manager/position_manager.rs, next_owed_delta_and_checkpoint):
// the checkpoint advances by ceil(owed × 2^64 / liquidity), keeping the growth not yet worth a unit.
func TestPartialCheckpoint(t *testing.T) {
	l := clmm.U128From64(3)
	half := clmm.U128{Lo: 1 << 63}
	if got, want := programs.PartialCheckpoint(half, clmm.U128{}, l, 1), (clmm.U128{Lo: 6148914691236517206}); got != want {
		t.Errorf("checkpoint %s, want %s", got, want)
	}
	if got := programs.PartialCheckpoint(half, clmm.U128{Lo: 7}, l, 0); got != (clmm.U128{Lo: 7}) {
		t.Errorf("nothing accrued: checkpoint %s, want it unchanged", got)
	}
	huge := clmm.U128{Hi: 1 << 63}
	if got := programs.PartialCheckpoint(huge, clmm.U128{}, clmm.U128{Hi: 1}, 0); got != huge {
		t.Errorf("overflow: checkpoint %s, want the growth inside", got)
	}
}

// rewardScenario is a dex-b pool emitting 1000 base units of RWD a second (86.4 RWD a day) to the
// liquidity in range.
const rewardScenario = `
mints:
  - {symbol: AAA, decimals: 6, price: 1}
  - {symbol: BBB, decimals: 6, price: 1}
  - {symbol: RWD, decimals: 6, price: 1}
pools:
  - {name: pr, dex: dex-b, mint0: AAA, mint1: BBB, tick_spacing: 64, price: 1, liquidity: "3000000000",
     rewards: [{mint: RWD, per_day: "86.4"}]}
positions:
  - {name: qr, pool: pr, lower_tick: -128, upper_tick: 128, liquidity: "1000000000"}
events:
  - {at: 10s, pool: {name: pr, fees_1: "1"}}
  - {at: 20s, pool: {name: pr, tick: 500}}
  - {at: 30s, pool: {name: pr, tick: 0}}
`

// TestPoolRewardsAccrue checks dex-b reward emission: the pool's reward growth moves only when the
// pool is touched, by floor(Δt × emissions / active liquidity); a position earns it while in range;
// crossing a tick flips its reward growth outside like the fee growth.
func TestPoolRewardsAccrue(t *testing.T) {
	sc, err := ParseScenario("rewards.yaml", []byte(rewardScenario))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{Scenario: sc})
	e.advance(t, 35*time.Second)
	mint := e.addr(t, ids.KindPosition, "qr")
	// In range from 0 to 20 s (two updates of 10 s at 4e9 active liquidity), out from 20 to 30 s.
	g := new(big.Int).Lsh(big.NewInt(10*1000), 64)
	g.Quo(g, big.NewInt(4_000_000_000))
	sum := new(big.Int).Mul(g, big.NewInt(2))
	want := new(big.Int).Rsh(sum.Mul(sum, big.NewInt(1_000_000_000)), 64).Uint64()
	owed, err := e.sim.Accounts().PositionOwed(mint)
	if err != nil {
		t.Fatal(err)
	}
	if owed.Rewards[0] != want || want < 4990 {
		t.Errorf("rewards owed %d, want %d (about 5000: 20 s × 1000/s × a quarter of the liquidity)", owed.Rewards[0], want)
	}
	_, pool, _ := e.sim.Accounts().Position(mint)
	if pool.RewardLastUpdated != uint64(testStart.Unix()+30) {
		t.Errorf("reward growth updated at %d, want the last swap's time %d", pool.RewardLastUpdated, testStart.Unix()+30)
	}
}
