package genesis

import (
	"maps"
	"math/big"
	"slices"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// pools compiles the CLMM pools and their accounts.
func (c *clmmCompiler) pools() {
	for i, ps := range c.sc.Pools {
		at := p("pools", i)
		if !c.uniqueName(at, "pool", i, ps.Name, poolNamed(c.w, ps.Name) != nil) {
			continue
		}
		dex, ok := programs.DexByName(ps.Dex)
		if !ok {
			c.failAt(append(at, "dex"), "pool %q: dex %q is not dex-a or dex-b", ps.Name, ps.Dex)
			continue
		}
		m0 := c.mint(ps.Mint0, append(at, "mint0"), "mint0")
		m1 := c.mint(ps.Mint1, append(at, "mint1"), "mint1")
		if ps.TickSpacing <= 0 || ps.TickSpacing > 16384 {
			c.failAt(append(at, "tick_spacing"), "pool %q: tick_spacing %d outside [1, 16384]", ps.Name, ps.TickSpacing)
			continue
		}
		if m0 == nil || m1 == nil {
			continue
		}
		pool := &programs.Pool{Name: ps.Name, Dex: dex, Mint0: m0, Mint1: m1, TickSpacing: uint16(ps.TickSpacing),
			Address: c.derive(dex.Program, "pool", ps.Name, append(at, "name"))}
		switch {
		case ps.TickArrays == "dynamic" && dex.Name == clmm.DexB:
			pool.DynamicTicks = true
		case ps.TickArrays != "" && ps.TickArrays != "fixed":
			c.failAt(append(at, "tick_arrays"), "pool %q: tick_arrays %q: want fixed, or dynamic on dex-b", ps.Name, ps.TickArrays)
		}
		c.books[pool] = pool.Book()
		c.w.Pools = append(c.w.Pools, pool)
		c.w.Name(ids.KindPool, pool.Name, pool.Address)
		c.w.PoolByAddr[pool.Address] = pool
		c.poolAccount(pool, ps, at)
		for _, sym := range slices.Sorted(maps.Keys(ps.Reserves)) {
			m := c.mint(sym, append(at, "reserves", sym), "reserve")
			if amt := c.units(ps.Reserves[sym], m, append(at, "reserves", sym)); amt > 0 {
				c.gen.Tokens = append(c.gen.Tokens, Grant{Wallet: pool.Address, Mint: m.Address, Amount: amt})
			}
		}
	}
}

// poolAccount builds the initial pool account.
func (c *clmmCompiler) poolAccount(pool *programs.Pool, ps scenario.PoolSpec, at []any) {
	liq, err := units.ParseInteger(ps.Liquidity)
	if err != nil {
		c.failAt(append(at, "liquidity"), "pool %q: liquidity: %v", ps.Name, err)
	}
	if ps.FeeRate < 0 || ps.FeeRate > 1_000_000 {
		c.failAt(append(at, "fee_rate"), "pool %q: fee_rate %d outside [0, 1000000]", ps.Name, ps.FeeRate)
	}
	tick, sqrt, err := priceState(ps.Price, pool)
	if err != nil {
		c.failAt(append(at, "price"), "pool %q: %v", ps.Name, err)
		return
	}
	_, bump, _ := ids.PDA(pool.Dex.Program, "pool", ps.Name)
	v0, _ := svm.AssociatedTokenAddress(pool.Address, pool.Mint0.Address)
	v1, _ := svm.AssociatedTokenAddress(pool.Address, pool.Mint1.Address)
	state := clmm.Pool{
		Config: ids.DerivedKey("amm-config", pool.Dex.Name), Bump: bump,
		Mint0: pool.Mint0.Address, Mint1: pool.Mint1.Address, Vault0: v0, Vault1: v1,
		HasDecimals: pool.Dex.Name == clmm.DexA, Decimals0: pool.Mint0.Decimals, Decimals1: pool.Mint1.Decimals,
		TickSpacing: pool.TickSpacing, HasFeeRate: pool.Dex.Name == clmm.DexB, FeeRate: uint32(max(0, ps.FeeRate)),
		Liquidity: clmm.U128From64(liq), SqrtPriceX64: sqrt, TickCurrent: tick,
		FeeGrowthGlobal0: programs.GrowthStart, FeeGrowthGlobal1: programs.GrowthStart, RewardLastUpdated: uint64(c.start.Unix()),
	}
	c.poolRewards(&state, pool, ps, at)
	c.poolStates[pool] = state
}

// poolRewards compiles a dex-b pool's reward emissions: emissions_per_second_x64 is the daily amount
// in base units × 2^64 / 86400, rounded down.
func (c *clmmCompiler) poolRewards(state *clmm.Pool, pool *programs.Pool, ps scenario.PoolSpec, at []any) {
	if len(ps.Rewards) > 0 && (pool.Dex.Name != clmm.DexB || len(ps.Rewards) > clmm.NumRewards) {
		c.failAt(append(at, "rewards"), "pool %q: rewards: at most %d, on dex-b pools only", ps.Name, clmm.NumRewards)
		return
	}
	for i, r := range ps.Rewards {
		m := c.mint(r.Mint, append(at, "rewards", i, "mint"), "reward mint")
		units := c.units(r.PerDay, m, append(at, "rewards", i, "per_day"))
		if m == nil {
			continue
		}
		e := new(big.Int).Lsh(new(big.Int).SetUint64(units), 64)
		emissions, _ := clmm.U128FromBig(e.Quo(e, big.NewInt(86400)))
		state.Rewards[i] = clmm.PoolReward{Mint: m.Address, EmissionsPerSecondX64: emissions}
	}
}

// priceState returns the current tick and sqrt price of a pool at a whole-token price.
func priceState(price float64, pool *programs.Pool) (int32, clmm.U128, error) {
	raw := clmm.UnscalePrice(price, pool.Mint0.Decimals, pool.Mint1.Decimals)
	tick, err := clmm.TickAtPrice(raw)
	if err != nil {
		return 0, clmm.U128{}, err
	}
	sqrt, err := clmm.SqrtPriceX64FromRawPrice(raw)
	return tick, sqrt, err
}

// tickState returns the sqrt price at a tick.
func tickState(tick int32) (clmm.U128, error) {
	return clmm.SqrtPriceX64FromRawPrice(clmm.PriceAtTick(tick))
}

// poolNamed returns the pool called name, or nil.
func poolNamed(w *programs.Catalog, name string) *programs.Pool {
	return find(w.Pools, func(pl *programs.Pool) bool { return pl.Name == name })
}

// positionNamed returns the position called name, or nil.
func positionNamed(w *programs.Catalog, name string) *programs.Position {
	return find(w.Positions, func(ps *programs.Position) bool { return ps.Name == name })
}

// positions compiles the CLMM positions and their accounts.
func (c *clmmCompiler) positions() {
	for i, ps := range c.sc.Positions {
		at := p("positions", i)
		if !c.uniqueName(at, "position", i, ps.Name, positionNamed(c.w, ps.Name) != nil) {
			continue
		}
		pool := poolNamed(c.w, ps.Pool)
		if pool == nil {
			c.failAt(append(at, "pool"), "position %q: unknown pool %q", ps.Name, ps.Pool)
			continue
		}
		rng, ok := c.positionRange(ps, pool, at)
		if !ok {
			continue
		}
		liq, err := units.ParseInteger(ps.Liquidity)
		if err != nil {
			c.failAt(append(at, "liquidity"), "position %q: liquidity: %v", ps.Name, err)
		}
		c.addPosition(ps, pool, rng, liq, at)
	}
}

// addPosition records a position and its account.
func (c *clmmCompiler) addPosition(ps scenario.PositionSpec, pool *programs.Pool, rng clmm.Range, liq uint64, at []any) {
	mint := ids.DerivedKey("position-mint", ps.Name)
	dex, err := clmm.NewDex(pool.Dex.Name, pool.Dex.Program)
	if err != nil {
		c.failAt(append(at, "pool"), "position %q: %v", ps.Name, err)
		return
	}
	addr, bump, err := dex.PositionAddress(mint)
	if err != nil {
		c.failAt(append(at, "name"), "position %q: %v", ps.Name, err)
		return
	}
	pos := &programs.Position{Name: ps.Name, Pool: pool, Mint: mint, Address: addr}
	state := clmm.Position{
		Pool: pool.Address, Mint: mint, HasBump: pool.Dex.Name == clmm.DexA, Bump: bump, Range: rng,
		Liquidity: clmm.U128From64(liq),
		FeesOwed0: c.units(ps.Fees0, pool.Mint0, append(at, "fees_0")),
		FeesOwed1: c.units(ps.Fees1, pool.Mint1, append(at, "fees_1")),
	}
	pstate := c.poolStates[pool]
	programs.AddLiquidity(pool.Dex.Layout, &state, &pstate, c.books[pool], true)
	c.poolStates[pool] = pstate
	c.w.Positions = append(c.w.Positions, pos)
	c.w.Name(ids.KindPosition, pos.Name, pos.Mint)
	c.w.PosByMint[mint] = pos
	c.posStates[pos] = state
	c.gen.Accounts = append(c.gen.Accounts, AccountInit{Key: addr, Account: svm.Account{
		Lamports: accountRent, Owner: pool.Dex.Program, Data: pool.Dex.Layout.EncodePosition(state)}})
}

// positionRange returns a position's range from ticks or prices.
func (c *clmmCompiler) positionRange(ps scenario.PositionSpec, pool *programs.Pool, at []any) (clmm.Range, bool) {
	var rng clmm.Range
	switch {
	case ps.LowerTick != nil && ps.UpperTick != nil:
		rng = clmm.Range{Lower: *ps.LowerTick, Upper: *ps.UpperTick}
	case ps.LowerPrice > 0 && ps.UpperPrice > 0:
		lo, errLo := clmm.TickAtPrice(clmm.UnscalePrice(ps.LowerPrice, pool.Mint0.Decimals, pool.Mint1.Decimals))
		hi, errHi := clmm.TickAtPrice(clmm.UnscalePrice(ps.UpperPrice, pool.Mint0.Decimals, pool.Mint1.Decimals))
		if errLo != nil || errHi != nil {
			c.failAt(append(at, "lower_price"), "position %q: prices outside the tick range", ps.Name)
			return rng, false
		}
		rng = clmm.Range{Lower: floorTo(lo, pool.TickSpacing), Upper: floorTo(hi, pool.TickSpacing)}
	default:
		c.failAt(at, "position %q: give lower_tick and upper_tick, or lower_price and upper_price", ps.Name)
		return rng, false
	}
	if err := rng.Validate(); err != nil || !rng.Aligned(pool.TickSpacing) {
		c.failAt(append(at, "lower_tick"), "position %q: range %s must be ordered, within bounds and aligned to tick spacing %d",
			ps.Name, rng, pool.TickSpacing)
		return rng, false
	}
	return rng, true
}

// floorTo rounds a tick down to a multiple of spacing.
func floorTo(tick int32, spacing uint16) int32 {
	s := int32(spacing)
	q := tick / s
	if tick%s != 0 && tick < 0 {
		q--
	}
	return q * s
}

// clmmAccounts writes the pool and tick-array accounts, once every position
// has added its liquidity to its pool and boundary ticks. The scenario's
// pool liquidity is that of other providers, active at the pool's price;
// the positions in range add theirs.
func (c *clmmCompiler) clmmAccounts() {
	for _, pool := range c.w.Pools {
		c.gen.Accounts = append(c.gen.Accounts, AccountInit{Key: pool.Address, Account: svm.Account{
			Lamports: accountRent, Owner: pool.Dex.Program, Data: pool.Dex.Layout.EncodePool(c.poolStates[pool])}})
		b := c.books[pool]
		for _, start := range slices.Sorted(maps.Keys(b.Arrays)) {
			c.gen.Accounts = append(c.gen.Accounts, AccountInit{Key: b.Address(start), Account: svm.Account{
				Lamports: accountRent, Owner: pool.Dex.Program, Data: b.Encode(start)}})
		}
	}
}
