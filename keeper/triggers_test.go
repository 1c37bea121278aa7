package keeper

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/prices"
	"github.com/keeper-project/keeper/keeper/watch"
	"github.com/keeper-project/keeper/policies"
)

// triggerFixture is a triggers value fed changes by hand, with the runs it
// asks for counted.
type triggerFixture struct {
	t      *triggers
	feed   prices.FeedID
	acct   solana.PublicKey // the mint's price account
	mint   string
	mu     sync.Mutex
	fired  []string
	policy *policies.Policy
}

const triggerMint = "So11111111111111111111111111111111111111112"

// priceTrigger1s is a 2 % price trigger on triggerMint with a 1 s window.
const priceTrigger1s = "      debounce: 1s\n      price: [{mint: " + triggerMint + ", change: 0.02}]\n"

func newTriggerFixture(t *testing.T, triggersYAML string) *triggerFixture {
	t.Helper()
	f := &triggerFixture{mint: triggerMint}
	f.feed[0] = 0xef
	cfg := config.Default()
	cfg.Prices.Feeds = map[string]config.PriceFeed{triggerMint: {Pyth: f.feed.String()}}
	src, err := prices.PythSource(f.feed, solana.PublicKey{})
	if err != nil {
		t.Fatal(err)
	}
	f.acct = src.Account
	ps, err := policies.Parse("t.yaml", []byte(`policies:
  - name: guard
    kind: repay
    schedule: "@every 30s"
    params: {trigger_health: 0.1, target_health: 0.2, max_amount: 1000}
    triggers:
`+triggersYAML))
	if err != nil {
		t.Fatal(err)
	}
	f.policy = ps[0]
	e := env{cfg: &cfg, logger: slog.New(slog.DiscardHandler), metrics: NewMetrics(nil), now: time.Now}
	f.t = newTriggers(e, watch.New(watch.Options{}), func(p string) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.fired = append(f.fired, p)
	})
	f.t.apply(ps)
	return f
}

// price feeds the mint's price account at price (in dollars, 8 decimals).
func (f *triggerFixture) price(slot uint64, usd float64) {
	data := prices.EncodeUpdate(prices.Update{Feed: f.feed, Price: int64(usd * 1e8), Exponent: -8,
		PublishTime: time.Now(), PostedSlot: slot, Full: true})
	f.t.changed(watch.Change{Account: f.acct, Data: data, Slot: slot})
}

// runsAfter lets d pass and returns how many runs were asked for by then.
func (f *triggerFixture) runsAfter(d time.Duration) int {
	time.Sleep(d)
	synctest.Wait()
	return f.runs()
}

func (f *triggerFixture) runs() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.fired)
}

// TestLoneMoveRunsAtOnce moves the price by less than the trigger, then
// across it once: the run is asked for at that notification, with no wait
// for the debounce window, over the loans of the mint; the window then
// ends with nothing waiting and asks for no other run. (Before, the run
// waited for the window's end.)
func TestLoneMoveRunsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newTriggerFixture(t, priceTrigger1s)
		f.price(1, 100) // the reference
		f.price(2, 99)  // −1 %: not enough
		if n := f.runsAfter(0); n != 0 {
			t.Fatalf("%d runs after a 1 %% move, want none", n)
		}
		f.price(3, 97.5) // −2.5 %
		if n := f.runsAfter(0); n != 1 {
			t.Fatalf("%d runs at the move's notification, want 1 at once", n)
		}
		scope, run := f.t.take("guard", true)
		if !run || scope == nil || !scope.Mints[triggerMint] || len(scope.Accounts) != 0 {
			t.Fatalf("triggered run scope %+v (run %v), want the mint's targets", scope, run)
		}
		if n := f.runsAfter(5 * time.Second); n != 1 {
			t.Errorf("%d runs after the window, want still 1: nothing fired in it", n)
		}
	})
}

// TestPriceTriggerBurstRunsTwice moves the price across the trigger, then
// 50 more times within the debounce window: one run at the first move,
// one at the window's end over what fired after the first run started, and
// none after; the run's start makes the latest price the reference.
func TestPriceTriggerBurstRunsTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newTriggerFixture(t, priceTrigger1s)
		f.price(1, 100)
		f.price(3, 97.5) // −2.5 %: the run starts
		synctest.Wait()
		if _, run := f.t.take("guard", true); !run || f.runs() != 1 {
			t.Fatalf("%d runs at the first move (run %v), want 1", f.runs(), run)
		}
		for i := range 50 {
			f.price(4+uint64(i)/25, 95-float64(i)*0.01) // > 2 % under the run's 97.5
			time.Sleep(10 * time.Millisecond)
		}
		if n := f.runsAfter(0); n != 1 {
			t.Fatalf("%d runs within the debounce window, want still 1", n)
		}
		if n := f.runsAfter(time.Second); n != 2 {
			t.Fatalf("%d runs after the burst, want 2: the first move's and the window's", n)
		}
		scope, run := f.t.take("guard", true)
		if !run || scope == nil || !scope.Mints[triggerMint] {
			t.Fatalf("trailing run scope %+v (run %v), want the mint's targets", scope, run)
		}
		if got := testutil.ToFloat64(f.t.metrics.TriggerFirings.WithLabelValues("guard", "price")); got != 51 {
			t.Errorf("price firings counted %v, want 51 (each move past 2 %% of the reference)", got)
		}
		f.price(10, 94) // −0.5 % from the price at the trailing run's start
		if n := f.runsAfter(5 * time.Second); n != 2 {
			t.Errorf("%d runs, want still 2: the reference moved to the run's price", n)
		}
		st := f.t.statuses(f.policy)
		if len(st) != 1 || st[0].Fired != 51 || st[0].LastSlot != 5 || !strings.Contains(st[0].Detail, triggerMint+" moved -") {
			t.Errorf("status %+v", st)
		}
	})
}

// TestTrailingRunCarriesWhatCameLater fires the price trigger (its run
// starts at once and takes the mint), then an account trigger within the
// window: the run at the window's end has the account alone in its scope,
// opens a window of its own, and a change in that one waits for its end.
func TestTrailingRunCarriesWhatCameLater(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		loan := solana.NewWallet().PublicKey()
		f := newTriggerFixture(t, priceTrigger1s+"      account: [{address: "+loan.String()+"}]\n")
		f.t.changed(watch.Change{Account: loan, Data: []byte{1}, First: true})
		f.price(1, 100)
		f.price(2, 90)
		synctest.Wait()
		scope, run := f.t.take("guard", true)
		if f.runs() != 1 || !run || scope == nil || !scope.Mints[triggerMint] || len(scope.Accounts) != 0 {
			t.Fatalf("%d runs, first scope %+v (run %v), want one at once over the mint", f.runs(), scope, run)
		}
		time.Sleep(300 * time.Millisecond)
		f.t.changed(watch.Change{Account: loan, Data: []byte{2}})
		if n := f.runsAfter(699 * time.Millisecond); n != 1 {
			t.Fatalf("%d runs before the window's end, want 1", n)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		scope, run = f.t.take("guard", true)
		if f.runs() != 2 || !run || scope == nil || len(scope.Mints) != 0 || !scope.Accounts[loan.String()] {
			t.Fatalf("%d runs, trailing scope %+v (run %v), want a second over the account alone", f.runs(), scope, run)
		}
		f.t.changed(watch.Change{Account: loan, Data: []byte{3}})
		if n := f.runsAfter(0); n != 2 {
			t.Fatalf("%d runs at a change in the trailing run's window, want it to wait", n)
		}
		if n := f.runsAfter(time.Second); n != 3 {
			t.Fatalf("%d runs after the trailing run's window, want 3", n)
		}
	})
}

// TestFiringBeforeTheRunTakesJoinsIt: what fires between a run's start
// being asked for and the run taking its scope joins that run, and the
// window's end asks for no other.
func TestFiringBeforeTheRunTakesJoinsIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		loan := solana.NewWallet().PublicKey()
		f := newTriggerFixture(t, priceTrigger1s+"      account: [{address: "+loan.String()+"}]\n")
		f.t.changed(watch.Change{Account: loan, Data: []byte{1}, First: true})
		f.price(1, 100)
		f.price(2, 90)
		f.t.changed(watch.Change{Account: loan, Data: []byte{2}})
		synctest.Wait()
		scope, run := f.t.take("guard", true)
		if f.runs() != 1 || !run || scope == nil || !scope.Mints[triggerMint] || !scope.Accounts[loan.String()] {
			t.Fatalf("%d runs, scope %+v (run %v), want one over the mint and the account", f.runs(), scope, run)
		}
		if n := f.runsAfter(5 * time.Second); n != 1 {
			t.Errorf("%d runs, want 1: nothing waited at the window's end", n)
		}
	})
}

// TestScheduledRunTakesWhatATriggerWaitsFor starts a scheduled run inside
// the debounce window of a triggered one: it covers every target, so no
// trailing run follows.
func TestScheduledRunTakesWhatATriggerWaitsFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newTriggerFixture(t, priceTrigger1s)
		f.price(1, 100)
		f.price(2, 90)
		synctest.Wait()
		if _, run := f.t.take("guard", true); !run || f.runs() != 1 {
			t.Fatalf("%d runs (run %v), want one at once", f.runs(), run)
		}
		f.price(3, 80)
		if scope, run := f.t.take("guard", false); !run || scope != nil {
			t.Fatalf("scheduled run scope %+v (run %v), want every target", scope, run)
		}
		if n := f.runsAfter(5 * time.Second); n != 1 {
			t.Fatalf("%d triggered runs after a scheduled one took the change, want only the first", n)
		}
		if _, run := f.t.take("guard", true); run {
			t.Error("a triggered run with nothing left wants to run")
		}
	})
}

// TestAccountPoolAndSlotTriggers fires an account trigger on a change of
// data (not on its first sight), a pool trigger on a move of the current
// tick (not on other changes), and a slot trigger every N slots.
func TestAccountPoolAndSlotTriggers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		loan := solana.NewWallet().PublicKey()
		pool := solana.NewWallet().PublicKey()
		f := newTriggerFixture(t, "      debounce: 0s\n      account: [{address: "+loan.String()+"}, {pool: "+pool.String()+"}]\n      slot: {every: 10}\n")
		poolAt := func(tick int32, liquidity uint64) []byte {
			return clmm.LayoutA().EncodePool(clmm.Pool{TickCurrent: tick, TickSpacing: 1, Liquidity: clmm.U128From64(liquidity)})
		}
		steps := []struct {
			c    watch.Change
			runs int
		}{
			{watch.Change{Account: loan, Data: []byte{1}, First: true}, 0},
			{watch.Change{Account: loan, Data: []byte{2}}, 1},
			{watch.Change{Account: pool, Data: poolAt(5, 1), First: true}, 1},
			{watch.Change{Account: pool, Data: poolAt(5, 2)}, 1},
			{watch.Change{Account: pool, Data: poolAt(6, 2)}, 2},
			{watch.Change{Slot: 100}, 2},
			{watch.Change{Slot: 109}, 2},
			{watch.Change{Slot: 110}, 3},
		}
		for i, s := range steps {
			f.t.changed(s.c)
			synctest.Wait()
			if n := f.runs(); n != s.runs {
				t.Fatalf("step %d: %d runs, want %d", i, n, s.runs)
			}
			if _, run := f.t.take("guard", true); run != (i == 1 || i == 4 || i == 7) {
				t.Fatalf("step %d: triggered run wanted %v", i, run)
			}
		}
	})
}

// TestCheckTriggersNeedsAPythFeed refuses a price trigger on a mint the
// config's prices.feeds gives no Pyth feed for, naming the policy's place.
func TestCheckTriggersNeedsAPythFeed(t *testing.T) {
	ps, err := policies.Parse("t.yaml", []byte(`policies:
  - name: guard
    kind: repay
    schedule: "@every 30s"
    params: {trigger_health: 0.1, target_health: 0.2, max_amount: 1000}
    triggers:
      price: [{mint: `+triggerMint+`, change: 0.02}]
`))
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	err = CheckTriggers(&cfg, ps)
	want := `t.yaml:2:5: policy "guard": price trigger of ` + triggerMint + `: prices.feeds has no pyth feed for the mint`
	if err == nil || err.Error() != want {
		t.Fatalf("CheckTriggers: %v, want %s", err, want)
	}
	cfg.Prices.Feeds = map[string]config.PriceFeed{triggerMint: {Pyth: strings.Repeat("ef", 32)}}
	if err := CheckTriggers(&cfg, ps); err != nil {
		t.Fatalf("CheckTriggers with the feed: %v", err)
	}
}

// TestReadinessSaysTheTriggersPoll fails /readyz's watch check while the
// watcher polls (here: no websocket endpoint), and has no watch check
// without triggers.
func TestReadinessSaysTheTriggersPoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newTriggerFixture(t, "      price: [{mint: "+triggerMint+", change: 0.02}]\n")
		u := &upkeep{}
		if checks := readiness(u, nil, time.Second)(); slices.ContainsFunc(checks, func(c readinessCheck) bool { return c.name == "watch" }) {
			t.Fatal("a watch check without triggers")
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go f.t.watcher.Run(ctx)
		synctest.Wait()
		var err error
		for _, c := range readiness(u, f.t, 2*time.Second)() {
			if c.name == "watch" {
				err = c.check(ctx)
			}
		}
		if err == nil || !strings.Contains(err.Error(), "polling every 2s: no websocket endpoint") {
			t.Fatalf("watch check: %v, want polling every 2s with the reason", err)
		}
	})
}

// TestReloadedTriggersDropTheOldWindow: a reload that changes a policy's
// triggers replaces them with their state; the old window's end asks for
// no run, and the new triggers run at their first firing.
func TestReloadedTriggersDropTheOldWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newTriggerFixture(t, priceTrigger1s)
		f.price(1, 100)
		f.price(2, 90)
		if _, run := f.t.take("guard", true); !run || f.runsAfter(0) != 1 {
			t.Fatalf("%d runs (run %v), want one at once", f.runs(), run)
		}
		f.price(3, 80) // waits for the window's end
		p := *f.policy
		p.Triggers.Debounce = 2 * time.Second
		f.t.apply([]*policies.Policy{&p})
		if n := f.runsAfter(5 * time.Second); n != 1 {
			t.Fatalf("%d runs after the reload, want 1: the old window ends with nothing", n)
		}
		f.price(4, 100) // arms the new trigger
		f.price(5, 90)
		if n := f.runsAfter(0); n != 2 {
			t.Errorf("%d runs at the new trigger's first firing, want 2", n)
		}
	})
}
