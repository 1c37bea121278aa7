package genesis

import (
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// strategyNamed returns the strategy called name, or nil.
func strategyNamed(w *programs.Catalog, name string) *programs.Strategy {
	return find(w.Strategies, func(s *programs.Strategy) bool { return s.Name == name })
}

// strategies compiles the lending strategies, their accounts and their idle principal.
func (c *lendingCompiler) strategies() {
	for i, ss := range c.sc.Strategies {
		at := p("strategies", i)
		if !c.uniqueName(at, "strategy", i, ss.Name, strategyNamed(c.w, ss.Name) != nil) {
			continue
		}
		m := c.mint(ss.PrincipalMint, append(at, "principal_mint"), "principal_mint")
		authority := c.walletRef(ss.Authority, append(at, "authority"), "authority")
		if m == nil {
			continue
		}
		info := &programs.Strategy{Name: ss.Name, Mint: m, Address: c.derive(ids.MarketProgramID, "strategy", ss.Name, append(at, "name"))}
		c.w.Strategies = append(c.w.Strategies, info)
		c.w.Name(ids.KindStrategy, info.Name, info.Address)
		c.w.StratByAdr[info.Address] = info
		state := &state.Strategy{
			Authority: authority.String(), PrincipalMint: m.Address.String(), OriginationsEnabled: true,
			InterestFee: ss.InterestFee, OriginationFee: ss.OriginationFee, PrincipalFee: ss.PrincipalFee,
			OriginationCap: ss.OriginationCap, ExternalYieldSource: ss.ExternalYieldSource,
			LiquidityBuffer:     int64(c.units(ss.LiquidityBuffer, m, append(at, "liquidity_buffer"))),
			ExternalYieldAmount: c.units(ss.ExternalYield, m, append(at, "external_yield")),
		}
		if ss.OriginationsEnabled != nil {
			state.OriginationsEnabled = *ss.OriginationsEnabled
		}
		for j, ts := range ss.Terms {
			state.Terms = append(state.Terms, c.term(ts, append(at, "terms", j)))
		}
		c.putJSONAccount(info.Address, state, at)
		if idle := c.units(ss.Idle, m, append(at, "idle")); idle > 0 {
			c.gen.Tokens = append(c.gen.Tokens, Grant{Wallet: info.Address, Mint: m.Address, Amount: idle})
		}
	}
}

// term compiles one collateral's terms.
func (c *lendingCompiler) term(ts scenario.TermSpec, at []any) state.Term {
	t := state.Term{AssetIdentifier: c.assetRef(ts.Collateral, append(at, "collateral"), "collateral"),
		Apys: map[string]int64{}, Ltv: ts.Ltv, Lqt: ts.Lqt, MaxAllocationPct: ts.MaxAllocationPct}
	if t.MaxAllocationPct == "" {
		t.MaxAllocationPct = "100"
	}
	if _, err := units.ParsePercent(t.MaxAllocationPct); err != nil {
		c.failAt(append(at, "max_allocation_pct"), "max_allocation_pct: %v", err)
	}
	if ts.Ltv < 0 || ts.Lqt < 0 || ts.Ltv > ts.Lqt || ts.Lqt > int64(apiwire.CBPSOne) {
		c.failAt(append(at, "ltv"), "ltv %d and lqt %d must satisfy 0 <= ltv <= lqt <= 1000000", ts.Ltv, ts.Lqt)
	}
	for _, key := range slices.Sorted(maps.Keys(ts.Apys)) {
		d, err := units.ParseTerm(key)
		if err != nil {
			c.failAt(append(at, "apys", key), "%v", err)
			continue
		}
		if ts.Apys[key] < 0 {
			c.failAt(append(at, "apys", key), "apy %d is negative", ts.Apys[key])
		}
		t.Apys[d.Key()] = ts.Apys[key]
	}
	return t
}

// vaults compiles the lending vaults.
func (c *lendingCompiler) vaults() {
	for i, vs := range c.sc.Vaults {
		at := p("vaults", i)
		strat := strategyNamed(c.w, vs.Strategy)
		if vs.Name == "" {
			c.failAt(append(at, "name"), "vault %d: name is required", i)
			continue
		}
		if strat == nil {
			c.failAt(append(at, "strategy"), "vault %q: unknown strategy %q", vs.Name, vs.Strategy)
			continue
		}
		v := &programs.Vault{Name: vs.Name, Strategy: strat, ExternalAPY: vs.ExternalAPY,
			Address: c.derive(ids.MarketProgramID, "vault", vs.Name, append(at, "name")),
			LPMint:  ids.DerivedKey("lp-mint", vs.Name)}
		for j, rs := range vs.Rewards {
			v.Rewards = append(v.Rewards, c.reward(rs, append(at, "rewards", j)))
		}
		for j, ds := range vs.Deposits {
			dat := append(at, "deposits", j)
			v.Deposits = append(v.Deposits, programs.Deposit{
				User:   c.walletRef(ds.User, append(dat, "user"), "user"),
				Amount: c.units(ds.Amount, strat.Mint, append(dat, "amount")), StakeDuration: ds.StakeDuration, Status: ds.Status})
		}
		c.w.Vaults = append(c.w.Vaults, v)
		c.w.Name(ids.KindVault, v.Name, v.Address)
	}
}

// reward compiles one reward schedule.
func (c *lendingCompiler) reward(rs scenario.RewardSpec, at []any) programs.RewardSchedule {
	m := c.mint(rs.Mint, append(at, "mint"), "reward mint")
	eps, err := strconv.ParseFloat(rs.EmissionsPerSecond, 64)
	if err != nil || eps < 0 || math.IsInf(eps, 0) {
		c.failAt(append(at, "emissions_per_second"), "emissions_per_second %q is not a non-negative number", rs.EmissionsPerSecond)
	}
	out := programs.RewardSchedule{Start: c.unix(rs.Start, "-1d", append(at, "start")),
		End: c.unix(rs.End, "30d", append(at, "end")), EmissionsPerSecond: eps}
	if m != nil {
		out.Mint = m.Address
	}
	return out
}

// loops compiles the loop records.
func (c *lendingCompiler) loops() {
	for i, ls := range c.sc.Loops {
		at := p("loops", i)
		pm := c.mint(ls.PrincipalMint, append(at, "principal_mint"), "principal_mint")
		cm := c.mint(ls.CollateralMint, append(at, "collateral_mint"), "collateral_mint")
		if pm == nil || cm == nil {
			continue
		}
		id := ls.Identifier
		if id == "" {
			id = pm.Address.String() + "-" + cm.Address.String()
		}
		l := programs.Loop{Identifier: id, Tags: ls.Tags, Principal: pm, Collateral: cm,
			FixedDeposited: ls.CollateralDeposited, FixedWAvgApy: ls.WAvgApy, MaxApy: ls.MaxApy}
		c.w.Loops = append(c.w.Loops, l)
	}
}
