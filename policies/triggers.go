package policies

import (
	"fmt"
	"strconv"
	"time"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// DefaultDebounce is the window after a triggered run's start within which
// more changes join one run at its end: one slot.
const DefaultDebounce = 400 * time.Millisecond

// maxDebounce bounds triggers.debounce: a longer wait is a schedule.
const maxDebounce = time.Minute

// Triggers start runs of a policy outside its schedule when the chain
// changes. A triggered run goes the way a scheduled one does (observe,
// evaluate, limits, journal) but evaluates only the targets the change
// affects. The first change starts a run at once; the changes within
// Debounce after it join one more run at the window's end.
type Triggers struct {
	// Debounce is the window a triggered run opens as it starts: the
	// changes within it join one run at its end (default 400ms).
	Debounce time.Duration `yaml:"debounce"`
	// Price triggers fire when a mint's oracle price moved.
	Price []PriceTrigger `yaml:"price"`
	// Account triggers fire when a named account changed.
	Account []AccountTrigger `yaml:"account"`
	// Slot fires every so many slots.
	Slot *SlotTrigger `yaml:"slot"`
}

// PriceTrigger fires when the price in a mint's Pyth price account moved
// by Change (a fraction: 0.02 is 2 %) or more, either way, since the
// policy's last run.
type PriceTrigger struct {
	// Mint is the token mint; the config's prices.feeds must name its Pyth
	// feed.
	Mint string `yaml:"mint"`
	// Change is the least relative move that fires, in (0, 1).
	Change float64 `yaml:"change"`
}

// AccountTrigger fires when an account changed since the policy's last
// run: Address for any change of its data (a loan, a vault), or Pool for a
// change of a CLMM pool's current tick. Exactly one is set.
type AccountTrigger struct {
	Address string `yaml:"address"`
	Pool    string `yaml:"pool"`
}

// SlotTrigger fires every Every slots.
type SlotTrigger struct {
	Every uint64 `yaml:"every"`
}

// Any reports whether any trigger is set.
func (t Triggers) Any() bool {
	return len(t.Price) > 0 || len(t.Account) > 0 || t.Slot != nil
}

// Describe lists the triggers in words, for plan and logs.
func (t Triggers) Describe() []string {
	var out []string
	for _, p := range t.Price {
		out = append(out, p.String())
	}
	for _, a := range t.Account {
		out = append(out, a.String())
	}
	if t.Slot != nil {
		out = append(out, t.Slot.String())
	}
	return out
}

// String names the trigger: "price <mint> ±2%".
func (p PriceTrigger) String() string {
	return fmt.Sprintf("price %s ±%s%%", p.Mint, strconv.FormatFloat(p.Change*100, 'g', 4, 64))
}

// String names the trigger: "account <address>" or "pool <address> tick".
func (a AccountTrigger) String() string {
	if a.Pool != "" {
		return "pool " + a.Pool + " tick"
	}
	return "account " + a.Address
}

// String names the trigger: "slot every N".
func (s SlotTrigger) String() string { return fmt.Sprintf("slot every %d", s.Every) }

// check validates triggers and fills their defaults.
func (t *Triggers) check(b *builder) {
	if !t.Any() {
		if b.has("triggers") && b.has("triggers", "debounce") {
			b.fail([]any{"triggers", "debounce"}, "triggers.debounce needs a trigger: price, account or slot")
		}
		return
	}
	switch {
	case !b.has("triggers", "debounce"):
		t.Debounce = DefaultDebounce
	case t.Debounce < 0 || t.Debounce > maxDebounce:
		b.fail([]any{"triggers", "debounce"}, "triggers.debounce must be between 0s and %s, got %s", maxDebounce, t.Debounce)
	}
	seen := map[string]bool{}
	for i, pt := range t.Price {
		at := []any{"triggers", "price", i}
		switch {
		case !isAddress(pt.Mint):
			b.fail(append(at, "mint"), "triggers.price[%d].mint: %s is not a base58 mint address%s", i, strictyaml.NameExcerpt(pt.Mint), notAddress(pt.Mint))
		case seen[pt.Mint]:
			b.fail(append(at, "mint"), "triggers.price[%d].mint: %s has a price trigger already", i, pt.Mint)
		}
		seen[pt.Mint] = true
		if !(pt.Change > 0 && pt.Change < 1) {
			b.fail(append(at, "change"), "triggers.price[%d].change must be a fraction between 0 and 1 (0.02 is 2%%), got %v", i, pt.Change)
		}
	}
	watched := map[string]bool{}
	for i, a := range t.Account {
		at := []any{"triggers", "account", i}
		addr, key := a.Address, "address"
		if a.Pool != "" {
			addr, key = a.Pool, "pool"
		}
		switch {
		case (a.Address == "") == (a.Pool == ""):
			b.fail(at, "triggers.account[%d]: give exactly one of address (any change) or pool (its current tick)", i)
		case !isAddress(addr):
			b.fail(append(at, key), "triggers.account[%d].%s: %s is not a base58 address%s", i, key, strictyaml.NameExcerpt(addr), notAddress(addr))
		case watched[addr]:
			b.fail(append(at, key), "triggers.account[%d].%s: %s is watched twice", i, key, addr)
		}
		watched[addr] = true
	}
	if t.Slot != nil && t.Slot.Every == 0 {
		b.fail([]any{"triggers", "slot", "every"}, "triggers.slot.every must be at least 1 slot")
	}
}
