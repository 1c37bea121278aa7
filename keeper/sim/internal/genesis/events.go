package genesis

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// events compiles the scripted events, sorted by time (stable: same-time events run in file order).
func (c *eventCompiler) events() {
	for i, es := range c.sc.Events {
		at := p("events", i)
		d, ok := c.eventTime(es, i, at)
		if !ok {
			continue
		}
		c.evTime = c.start.Add(d)
		ev, ok := c.event(es, at)
		if !ok {
			continue
		}
		ev.At = d
		c.evs = append(c.evs, ev)
	}
	sort.SliceStable(c.evs, func(i, j int) bool { return c.evs[i].At < c.evs[j].At })
}

// eventTime returns an event's offset from the start: its at, or the start of its at_slot.
func (c *eventCompiler) eventTime(es scenario.EventSpec, i int, at []any) (time.Duration, bool) {
	if es.AtSlot != nil {
		if es.At != "" {
			c.failAt(at, "event %d: give at or at_slot, not both", i)
			return 0, false
		}
		if *es.AtSlot > uint64(maxEventSlot) {
			c.failAt(append(at, "at_slot"), "event %d: at_slot %d is past slot %d (a year)", i, *es.AtSlot, maxEventSlot)
			return 0, false
		}
		return time.Duration(*es.AtSlot) * chainsim.SlotDuration, true
	}
	if es.PriceMove != nil {
		c.failAt(at, "event %d: price_move happens at a slot: give at_slot", i)
		return 0, false
	}
	d, err := units.ParseOffset(es.At)
	if err != nil || d < 0 {
		c.failAt(append(at, "at"), "event %d: at must be a non-negative offset such as 15s (got %q)", i, es.At)
		return 0, false
	}
	return d, true
}

// maxEventSlot bounds at_slot: a year of slots.
const maxEventSlot = 365 * 24 * time.Hour / chainsim.SlotDuration

// event compiles one event's action; exactly one must be set.
func (c *eventCompiler) event(es scenario.EventSpec, at []any) (Event, bool) {
	n := 0
	for _, set := range []bool{es.Oracle != nil, es.Pool != nil, es.Fill != nil, es.Fees != nil, es.ExternalAPY != nil, es.Term != nil, es.Pyth != nil, es.PriceMove != nil,
		es.Congestion != nil, es.Jito != nil, es.AMM != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		c.failAt(at, "an event needs exactly one of oracle, pool, fill, fees, external_apy, term, pyth, price_move, congestion, jito, amm (it has %d)", n)
		return Event{}, false
	}
	switch {
	case es.Oracle != nil:
		return c.oracleEvent(es.Oracle, append(at, "oracle"))
	case es.Pool != nil:
		return c.poolEvent(*es.Pool, append(at, "pool"))
	case es.Fill != nil:
		return c.fillEvent(*es.Fill, append(at, "fill"))
	case es.Fees != nil:
		return c.feesEvent(*es.Fees, append(at, "fees"))
	case es.ExternalAPY != nil:
		return c.externalAPYEvent(*es.ExternalAPY, append(at, "external_apy"))
	case es.Pyth != nil:
		return c.pythEvent(*es.Pyth, append(at, "pyth"))
	case es.PriceMove != nil:
		return c.priceMoveEvent(*es.PriceMove, *es.AtSlot, append(at, "price_move"))
	case es.Congestion != nil:
		return marketEvents{c}.congestion(*es.Congestion, append(at, "congestion"))
	case es.Jito != nil:
		return marketEvents{c}.jito(*es.Jito, append(at, "jito"))
	case es.AMM != nil:
		return c.ammEvent(*es.AMM, append(at, "amm"))
	}
	return c.termEvent(*es.Term, append(at, "term"))
}

// oracleEvent sets oracle prices.
func (c *eventCompiler) oracleEvent(prices map[string]float64, at []any) (Event, bool) {
	changes := map[solana.PublicKey]float64{}
	for _, sym := range slices.Sorted(maps.Keys(prices)) {
		m := c.mint(sym, append(at, sym), "oracle mint")
		if m == nil {
			return Event{}, false
		}
		if prices[sym] < 0 {
			c.failAt(append(at, sym), "price of %s is negative", sym)
			return Event{}, false
		}
		changes[m.Address] = prices[sym]
	}
	return Event{Desc: fmt.Sprintf("oracle %v", prices), Apply: func(s Target) error {
		s.Catalog().SetPrices(changes)
		s.Catalog().PricesAt.Store(s.Clock().Now().UnixNano())
		return nil
	}}, true
}

// ammEvent changes an AMM pool of the scenario: its depth, its price or its quote skew.
func (c *eventCompiler) ammEvent(ae scenario.AMMEvent, at []any) (Event, bool) {
	if !slices.ContainsFunc(c.sc.AMMs, func(a scenario.AMMSpec) bool { return a.Name == ae.Name }) {
		return c.unknown(append(at, "name"), "amm", ae.Name)
	}
	if err := ae.Check(); err != nil {
		c.failAt(at, "amm event: %v", err)
		return Event{}, false
	}
	desc := fmt.Sprintf("amm %s: base reserve %g, price %g", ae.Name, ae.BaseReserve, ae.Price)
	if ae.QuoteSkewBps != nil {
		desc += fmt.Sprintf(", quote skew %d bps", *ae.QuoteSkewBps)
	}
	return Event{Desc: desc, Apply: func(s Target) error { return s.ChangeAMM(ae) }}, true
}

// pythEvent halts or resumes the pushing of mints' Pyth feeds.
func (c *eventCompiler) pythEvent(pe scenario.PythEvent, at []any) (Event, bool) {
	set := map[*programs.PythFeed]bool{}
	for _, l := range []struct {
		key  string
		syms []string
	}{{"halt", pe.Halt}, {"resume", pe.Resume}} {
		key := l.key
		for i, sym := range l.syms {
			m := c.mint(sym, append(at, key, i), "pyth mint")
			if m == nil {
				return Event{}, false
			}
			if m.Pyth == nil {
				c.failAt(append(at, key, i), "mint %q has no pyth feed", sym)
				return Event{}, false
			}
			set[m.Pyth] = key == "halt"
		}
	}
	return Event{Desc: fmt.Sprintf("pyth halt %v resume %v", pe.Halt, pe.Resume), Apply: func(s Target) error {
		for f, halt := range set {
			f.Halted = halt
			if !halt {
				f.At = time.Time{} // push at once
			}
		}
		return nil
	}}, true
}

// unknown fails at path for a name that names no what, and returns no event.
func (c *eventCompiler) unknown(path []any, what, name string) (Event, bool) {
	c.failAt(path, "unknown %s %q", what, name)
	return Event{}, false
}

// poolEvent moves a pool's price.
func (c *eventCompiler) poolEvent(pm scenario.PoolMove, at []any) (Event, bool) {
	pool := poolNamed(c.w, pm.Name)
	if pool == nil {
		return c.unknown(append(at, "name"), "pool", pm.Name)
	}
	var tick int32
	var sqrt clmm.U128
	var err error
	move := true
	switch {
	case pm.Tick != nil && pm.Price == 0:
		tick = *pm.Tick
		sqrt, err = tickState(tick)
	case pm.Tick == nil && pm.Price > 0:
		tick, sqrt, err = priceState(pm.Price, pool)
	case pm.Tick == nil && pm.Price == 0 && (pm.Fees0 != "" || pm.Fees1 != ""):
		move = false
	default:
		c.failAt(at, "pool event: give either price (positive) or tick, or fees only")
		return Event{}, false
	}
	if err != nil || tick < clmm.MinTick || tick > clmm.MaxTick {
		c.failAt(at, "pool event: %v", err)
		return Event{}, false
	}
	f0 := c.units(pm.Fees0, pool.Mint0, append(at, "fees_0"))
	f1 := c.units(pm.Fees1, pool.Mint1, append(at, "fees_1"))
	desc := fmt.Sprintf("pool %s: swap fees +%d/+%d", pool.Name, f0, f1)
	if move {
		desc += fmt.Sprintf(", to tick %d", tick)
	}
	when := uint64(c.evTime.Unix())
	return Event{Desc: desc, Apply: func(s Target) error {
		return s.SwapPool(pool, when, f0, f1, move, tick, sqrt)
	}}, true
}

// fillEvent fills part of a withdrawal request.
func (c *eventCompiler) fillEvent(fs scenario.FillSpec, at []any) (Event, bool) {
	v := earnNamed(c.w, fs.Vault)
	if v == nil {
		return c.unknown(append(at, "vault"), "earn vault", fs.Vault)
	}
	r := RequestNamed(v, fs.Request)
	if r == nil {
		c.failAt(append(at, "request"), "earn vault %q has no request %q", fs.Vault, fs.Request)
		return Event{}, false
	}
	amt := c.units(fs.Amount, v.Mint, append(at, "amount"))
	return Event{Desc: fmt.Sprintf("fill %s/%s by %d", v.Name, r.Name, amt), Apply: func(s Target) error {
		return s.FillRequest(r, amt)
	}}, true
}

// feesEvent makes a position earn fees through its pool's fee growth; its stored figure is unchanged.
func (c *eventCompiler) feesEvent(fs scenario.FeesSpec, at []any) (Event, bool) {
	pos := positionNamed(c.w, fs.Position)
	if pos == nil {
		return c.unknown(append(at, "position"), "position", fs.Position)
	}
	f0 := c.units(fs.Fees0, pos.Pool.Mint0, append(at, "fees_0"))
	f1 := c.units(fs.Fees1, pos.Pool.Mint1, append(at, "fees_1"))
	when := uint64(c.evTime.Unix())
	return Event{Desc: fmt.Sprintf("fees on %s +%d/+%d", pos.Name, f0, f1), Apply: func(s Target) error {
		return s.EarnFees(pos, when, f0, f1)
	}}, true
}

// externalAPYEvent changes a vault's external yield APY.
func (c *eventCompiler) externalAPYEvent(es scenario.ExternalAPYSpec, at []any) (Event, bool) {
	var vault *programs.Vault
	for _, v := range c.w.Vaults {
		if v.Name == es.Vault {
			vault = v
		}
	}
	if vault == nil {
		return c.unknown(append(at, "vault"), "vault", es.Vault)
	}
	return Event{Desc: fmt.Sprintf("external apy of %s to %v", vault.Name, es.APY), Apply: func(Target) error {
		vault.ExternalAPY = es.APY
		return nil
	}}, true
}

// termEvent sets one APY of a strategy's terms.
func (c *eventCompiler) termEvent(tc scenario.TermChange, at []any) (Event, bool) {
	strat := strategyNamed(c.w, tc.Strategy)
	if strat == nil {
		return c.unknown(append(at, "strategy"), "strategy", tc.Strategy)
	}
	asset := c.assetRef(tc.Collateral, append(at, "collateral"), "collateral")
	d, err := units.ParseTerm(tc.Term)
	if err != nil {
		c.failAt(append(at, "term"), "%v", err)
		return Event{}, false
	}
	if tc.APY < 0 || asset == "" {
		c.failAt(append(at, "apy"), "term event: apy must be non-negative")
		return Event{}, false
	}
	key := d.Key()
	return Event{Desc: fmt.Sprintf("term %s %s %s to %d", strat.Name, tc.Collateral, tc.Term, tc.APY), Apply: func(s Target) error {
		return s.UpdateStrategyAccount(strat, func(st *state.Strategy) {
			t, ok := st.Term(asset)
			if !ok {
				st.Terms = append(st.Terms, state.Term{AssetIdentifier: asset, Apys: map[string]int64{}, MaxAllocationPct: "100"})
				t = &st.Terms[len(st.Terms)-1]
			}
			if t.Apys == nil {
				t.Apys = map[string]int64{}
			}
			t.Apys[key] = tc.APY
		})
	}}, true
}
