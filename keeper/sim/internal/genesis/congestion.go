package genesis

import (
	"fmt"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// marketEvents compiles the events that set the chain's fee market.
type marketEvents struct{ *eventCompiler }

// eventSlot returns the first slot that starts at or after the event being compiled.
func (c marketEvents) eventSlot() uint64 {
	d := c.evTime.Sub(c.start)
	return uint64((d + chainsim.SlotDuration - 1) / chainsim.SlotDuration)
}

// congestion turns the chain's competing load on or off at the event's slot. The chain
// changes at that slot whenever the event runs: the setting is scheduled on the chain when the
// simulator is built.
func (c marketEvents) congestion(cs scenario.CongestionSpec, at []any) (Event, bool) {
	slot := c.eventSlot()
	if cs.Off {
		if len(cs.Accounts) > 0 || len(cs.Prices) > 0 || cs.Units != 0 || cs.Demand != 0 {
			c.failAt(at, "congestion: off takes no other key")
			return Event{}, false
		}
		return chainEvent(fmt.Sprintf("congestion off at slot %d", slot), func(m *chainsim.Market) error {
			return m.SetLoad(slot, nil)
		}), true
	}
	load := &chainsim.Load{Prices: cs.Prices, Units: cs.Units, Demand: cs.Demand}
	for i, name := range cs.Accounts {
		load.Accounts = append(load.Accounts, c.accountRef(name, append(at, "accounts", i)))
	}
	if err := load.Validate(); err != nil {
		c.failAt(at, "congestion: %v", err)
		return Event{}, false
	}
	desc := fmt.Sprintf("congestion on %v at prices %v from slot %d", cs.Accounts, cs.Prices, slot)
	return chainEvent(desc, func(m *chainsim.Market) error { return m.SetLoad(slot, load) }), true
}

// jito sets the share of non-Jito leaders and the competing tips at the event's slot.
func (c marketEvents) jito(js scenario.JitoSpec, at []any) (Event, bool) {
	slot := c.eventSlot()
	var tips *chainsim.TipLoad
	if len(js.Tips) > 0 || js.Bundles != 0 || js.Room != 0 {
		tips = &chainsim.TipLoad{Tips: js.Tips, Bundles: js.Bundles, Room: js.Room}
		if err := tips.Validate(); err != nil {
			c.failAt(at, "jito: %v", err)
			return Event{}, false
		}
	}
	share := js.NonJitoShare
	if share != nil && !(*share >= 0 && *share <= 1) {
		c.failAt(append(at, "non_jito_share"), "jito: non_jito_share %v, want a fraction in [0, 1]", *share)
		return Event{}, false
	}
	desc := fmt.Sprintf("jito tips %v (%d bundles, room %d) from slot %d", js.Tips, js.Bundles, js.Room, slot)
	return chainEvent(desc, func(m *chainsim.Market) error {
		if share != nil {
			if err := m.SetNonJitoShare(slot, *share); err != nil {
				return err
			}
		}
		return m.SetTipLoad(slot, tips)
	}), true
}

// chainEvent is an event that sets the chain's fee market when the simulator is built; it does
// nothing when it runs but log.
func chainEvent(desc string, set func(*chainsim.Market) error) Event {
	var err error
	return Event{
		Desc:  desc,
		Setup: func(s Target) { err = set(s.Chain().Market) },
		Apply: func(Target) error { return err },
	}
}

// accountRef resolves an account a load write-locks: a loan, strategy, vault, pool or earn vault
// by name, else a wallet ("$wallet", a wallet name or a base58 address).
func (c marketEvents) accountRef(name string, path []any) solana.PublicKey {
	for _, l := range c.w.Loans {
		if l.Name == name {
			return l.Address
		}
	}
	for _, s := range c.w.Strategies {
		if s.Name == name {
			return s.Address
		}
	}
	for _, v := range c.w.Vaults {
		if v.Name == name {
			return v.Address
		}
	}
	if p := poolNamed(c.w, name); p != nil {
		return p.Address
	}
	if e := earnNamed(c.w, name); e != nil {
		return e.Address
	}
	return c.walletRef(name, path, "congestion account")
}
