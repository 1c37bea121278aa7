package keeper

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/prices"
	"github.com/keeper-project/keeper/keeper/watch"
	"github.com/keeper-project/keeper/policies"
)

// triggers fires out-of-schedule runs of the policies that have triggers:
// it keeps the chain watcher on the accounts they name, decides from each
// change which of them fire, and starts a policy's run at its first firing.
// The firings within the policy's debounce window after that run started
// join one more run at the window's end, over the targets they touched.
type triggers struct {
	env
	fire    func(policy string) // starts a triggered run (scheduler.fire)
	watcher *watch.Watcher

	mu       sync.Mutex
	byPolicy map[string]*policyTriggers // guarded by mu
}

// policyTriggers are one policy's triggers and what they wait to run.
type policyTriggers struct {
	policy   string
	key      string // the triggers as written, to keep state across reloads
	debounce time.Duration
	prices   map[solana.PublicKey]*priceWatch
	accounts map[solana.PublicKey]*accountWatch
	slot     *slotWatch
	pending  *pendingScope   // nil: nothing waits
	window   *debounceWindow // nil when none is open
}

// debounceWindow is a policy's open debounce window, which a triggered run
// opened; its timer ends it.
type debounceWindow struct{ timer *time.Timer }

// pendingScope is what a policy's fired triggers touched since its last run.
type pendingScope struct {
	all      bool
	mints    map[string]bool
	accounts map[string]bool
}

// priceWatch is a price trigger: the price at the policy's last run (ref)
// and the latest one seen.
type priceWatch struct {
	trig          policies.PriceTrigger
	status        *triggerStatus
	ref, last     float64
	hasRef, known bool
}

// accountWatch is an account or pool trigger (with the pool's tick last seen).
type accountWatch struct {
	trig    policies.AccountTrigger
	status  *triggerStatus
	tick    int32
	hasTick bool
}

// slotWatch is a slot trigger: it fires Every slots after from.
type slotWatch struct {
	every  uint64
	status *triggerStatus
	from   uint64
}

// triggerStatus is one trigger's firings since the daemon started, for
// /status; the journal keeps them across restarts, for plan.
type triggerStatus struct {
	Trigger   string    `json:"trigger"`
	Fired     int       `json:"fired"`
	LastFired time.Time `json:"last_fired,omitzero"`
	LastSlot  uint64    `json:"last_slot,omitempty"`
	Detail    string    `json:"detail,omitempty"`
	journaled int       // of Fired, how many the journal has
}

// triggerLog keeps trigger firings; *journal.Journal is one.
type triggerLog interface {
	RecordTriggerFirings(ctx context.Context, fs []journal.TriggerFiring) error
	TriggerFirings(ctx context.Context, policy string) ([]journal.TriggerFiring, error)
}

// newTriggers returns the triggers of no policy, watching through w.
func newTriggers(e env, w *watch.Watcher, fire func(string)) *triggers {
	return &triggers{env: e, fire: fire, watcher: w, byPolicy: map[string]*policyTriggers{}}
}

// apply makes the triggers of ps (enabled ones) those that fire from now
// on; a policy whose triggers did not change keeps their state.
func (t *triggers) apply(ps []*policies.Policy) {
	t.mu.Lock()
	defer t.mu.Unlock()
	next := map[string]*policyTriggers{}
	for _, p := range ps {
		if !p.Enabled || !p.Triggers.Any() {
			continue
		}
		key := fmt.Sprint(p.Triggers.Debounce, p.Triggers.Describe())
		if old := t.byPolicy[p.Name]; old != nil && old.key == key {
			next[p.Name] = old
			continue
		}
		pt, err := compileTriggers(t.cfg.Prices, p)
		if err != nil {
			t.logger.Error("Triggers not usable; the policy runs on its schedule only", "policy", p.Name, "err", err)
			continue
		}
		pt.key = key
		next[p.Name] = pt
	}
	for name, old := range t.byPolicy {
		if next[name] != old && old.window != nil {
			old.window.timer.Stop()
		}
	}
	t.byPolicy = next
	t.watchLocked()
}

// watchLocked points the watcher at every account the triggers name.
func (t *triggers) watchLocked() {
	var keys []solana.PublicKey
	slots := false
	for _, pt := range t.byPolicy {
		for k := range pt.prices {
			keys = append(keys, k)
		}
		for k := range pt.accounts {
			keys = append(keys, k)
		}
		slots = slots || pt.slot != nil
	}
	t.watcher.Set(keys, slots)
}

// compileTriggers resolves p's triggers: each price trigger's mint to its
// Pyth price account in the config's prices.feeds.
func compileTriggers(c config.Prices, p *policies.Policy) (*policyTriggers, error) {
	tr := p.Triggers
	pt := &policyTriggers{policy: p.Name, debounce: tr.Debounce,
		prices: map[solana.PublicKey]*priceWatch{}, accounts: map[solana.PublicKey]*accountWatch{}}
	for _, pr := range tr.Price {
		acct, err := priceAccount(c, pr.Mint)
		if err != nil {
			return nil, err
		}
		pt.prices[acct] = &priceWatch{trig: pr, status: &triggerStatus{Trigger: pr.String()}}
	}
	for _, a := range tr.Account {
		addr := a.Address
		if a.Pool != "" {
			addr = a.Pool
		}
		key, err := solana.PublicKeyFromBase58(addr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a, err)
		}
		pt.accounts[key] = &accountWatch{trig: a, status: &triggerStatus{Trigger: a.String()}}
	}
	if tr.Slot != nil {
		pt.slot = &slotWatch{every: tr.Slot.Every, status: &triggerStatus{Trigger: tr.Slot.String()}}
	}
	return pt, nil
}

// priceAccount is the Pyth price update account of mint in the config.
func priceAccount(c config.Prices, mint string) (solana.PublicKey, error) {
	f, ok := c.Feeds[mint]
	if !ok || f.Pyth == "" {
		return solana.PublicKey{}, fmt.Errorf("price trigger of %s: prices.feeds has no pyth feed for the mint", mint)
	}
	id, err := prices.ParseFeedID(f.Pyth)
	if err != nil {
		return solana.PublicKey{}, fmt.Errorf("prices.feeds.%s.pyth: %w", mint, err)
	}
	var acct solana.PublicKey
	if f.Account != "" {
		if acct, err = solana.PublicKeyFromBase58(f.Account); err != nil {
			return solana.PublicKey{}, fmt.Errorf("prices.feeds.%s.account: %w", mint, err)
		}
	}
	src, err := prices.PythSource(id, acct)
	if err != nil {
		return solana.PublicKey{}, fmt.Errorf("prices.feeds.%s: %w", mint, err)
	}
	return src.Account, nil
}

// CheckTriggers checks that every enabled policy's price triggers name a
// mint whose Pyth feed the config's prices.feeds gives.
func CheckTriggers(c *config.Config, ps []*policies.Policy) error {
	var bad []string
	for _, p := range ps {
		if !p.Enabled {
			continue
		}
		for _, pr := range p.Triggers.Price {
			if _, err := priceAccount(c.Prices, pr.Mint); err != nil {
				bad = append(bad, fmt.Sprintf("%s:%d:%d: policy %q: %v", p.File, p.Line, p.Column, p.Name, err))
			}
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "\n"))
	}
	return nil
}

// changed is the watcher's OnChange: it fires every trigger the change
// crosses, and starts the runs of the policies whose window was closed.
func (t *triggers) changed(c watch.Change) {
	for _, policy := range t.crossed(c) {
		t.fire(policy)
	}
}

// crossed fires every trigger c crosses and returns the policies whose run
// starts now.
func (t *triggers) crossed(c watch.Change) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var start []string
	for _, pt := range t.byPolicy {
		var now bool
		if c.Account.IsZero() {
			now = t.slotChanged(pt, c.Slot)
		} else {
			if pw := pt.prices[c.Account]; pw != nil {
				now = t.priceChanged(pt, pw, c)
			}
			if aw := pt.accounts[c.Account]; aw != nil {
				now = t.accountChanged(pt, aw, c) || now
			}
		}
		if now {
			start = append(start, pt.policy)
		}
	}
	return start
}

// priceChanged fires a price trigger when the price moved by its change
// or more since the policy's last run (or since the first price seen). It
// reports whether the policy's run starts now.
func (t *triggers) priceChanged(pt *policyTriggers, pw *priceWatch, c watch.Change) bool {
	u, err := prices.DecodeUpdate(c.Data)
	if err != nil {
		t.logger.Debug("Watched price account is not a price update", "policy", pt.policy, "mint", pw.trig.Mint, "err", err)
		return false
	}
	p := float64(u.Price) * math.Pow10(int(u.Exponent))
	pw.last, pw.known = p, true
	if !pw.hasRef || pw.ref <= 0 {
		pw.ref, pw.hasRef = p, true
		t.logger.Debug("Price trigger armed", "policy", pt.policy, "mint", pw.trig.Mint, "price", p, "slot", c.Slot)
		return false
	}
	move := (p - pw.ref) / pw.ref
	if math.Abs(move) < pw.trig.Change {
		return false
	}
	return t.fired(pt, pw.status, "price", c.Slot, fmt.Sprintf("%s moved %+.2f%% (%g → %g)", pw.trig.Mint, move*100, pw.ref, p),
		func(s *pendingScope) { s.mints[pw.trig.Mint] = true })
}

// accountChanged fires an account trigger on any change of its data, and a
// pool trigger when the pool's current tick moved. It reports whether the
// policy's run starts now.
func (t *triggers) accountChanged(pt *policyTriggers, aw *accountWatch, c watch.Change) bool {
	addr := c.Account.String()
	kind, detail := "account", "the account changed"
	if aw.trig.Pool != "" {
		tick, ok := poolTick(c.Data)
		if !ok {
			t.logger.Debug("Watched pool is not a CLMM pool of either layout", "policy", pt.policy, "pool", addr)
			return false
		}
		prev, had := aw.tick, aw.hasTick
		aw.tick, aw.hasTick = tick, true
		if !had || prev == tick {
			return false
		}
		kind, detail = "pool", fmt.Sprintf("current tick %d → %d", prev, tick)
	} else if c.First {
		return false
	}
	return t.fired(pt, aw.status, kind, c.Slot, detail, func(s *pendingScope) { s.accounts[addr] = true })
}

// poolTick decodes a CLMM pool account of either layout and returns its
// current tick.
func poolTick(data []byte) (int32, bool) {
	for _, l := range []clmm.Layout{clmm.LayoutA(), clmm.LayoutB()} {
		if len(data) != l.PoolSize() {
			continue
		}
		if p, err := l.DecodePool(data); err == nil {
			return p.TickCurrent, true
		}
	}
	return 0, false
}

// slotChanged fires a slot trigger every Every slots. It reports whether
// the policy's run starts now.
func (t *triggers) slotChanged(pt *policyTriggers, slot uint64) bool {
	sw := pt.slot
	if sw == nil {
		return false
	}
	if sw.from == 0 {
		sw.from = slot
		return false
	}
	if slot < sw.from+sw.every {
		return false
	}
	sw.from = slot
	return t.fired(pt, sw.status, "slot", slot, fmt.Sprintf("slot %d", slot), func(s *pendingScope) { s.all = true })
}

// fired records a trigger's firing and adds what it touched to the
// policy's pending scope. With no debounce window open, the policy's run
// starts now (fired reports true; the caller starts it once t.mu is
// released) and a window opens; within a window, what fired waits for the
// window's end.
func (t *triggers) fired(pt *policyTriggers, st *triggerStatus, kind string, slot uint64, detail string, touch func(*pendingScope)) bool {
	st.Fired++
	st.LastFired, st.LastSlot, st.Detail = t.now().UTC(), slot, detail
	t.metrics.TriggerFirings.WithLabelValues(pt.policy, kind).Inc()
	t.logger.Info("Trigger fired", "policy", pt.policy, "trigger", st.Trigger, "slot", slot, "detail", detail)
	if pt.pending == nil {
		pt.pending = &pendingScope{mints: map[string]bool{}, accounts: map[string]bool{}}
	}
	touch(pt.pending)
	if pt.window != nil {
		return false
	}
	t.openWindow(pt)
	return true
}

// openWindow opens pt's debounce window, as its run starts (none for a
// zero debounce: every firing starts a run, which the scheduler runs after
// the one in progress). The caller holds t.mu.
func (t *triggers) openWindow(pt *policyTriggers) {
	if pt.debounce <= 0 {
		return
	}
	w := &debounceWindow{}
	w.timer = time.AfterFunc(pt.debounce, func() {
		if t.windowEnded(pt, w) {
			t.fire(pt.policy)
		}
	})
	pt.window = w
}

// windowEnded closes pt's debounce window and reports whether firings
// wait in it: then their run starts now and another window opens, so that
// a policy's triggered runs are at least its debounce apart. A window of
// triggers replaced since it opened (a reload) ends with nothing.
func (t *triggers) windowEnded(pt *policyTriggers, window *debounceWindow) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if pt.window != window || t.byPolicy[pt.policy] != pt {
		return false
	}
	pt.window = nil
	waiting := pt.pending != nil
	t.logger.Debug("Debounce window ended", "policy", pt.policy, "run", waiting)
	if waiting {
		t.openWindow(pt)
	}
	return waiting
}

// take is called as a run of policy starts: a scheduled run covers every
// target, so what waited is dropped with it; a triggered run gets the
// scope its triggers touched, and run false when a run since took it.
// Either way the prices of the policy's triggers compare with the prices
// seen now from here on. An open debounce window stays open: what fires
// in it waits for its end.
func (t *triggers) take(policy string, triggered bool) (scope *policies.Scope, run bool) {
	if t == nil {
		return nil, !triggered
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	pt := t.byPolicy[policy]
	if pt == nil {
		return nil, !triggered
	}
	for _, pw := range pt.prices {
		if pw.known {
			pw.ref, pw.hasRef = pw.last, true
		}
	}
	pending := pt.pending
	pt.pending = nil
	switch {
	case !triggered:
		return nil, true
	case pending == nil:
		return nil, false
	case pending.all:
		return nil, true
	}
	return &policies.Scope{Mints: pending.mints, Accounts: pending.accounts}, true
}

// journal records in the journal the firings of policy's triggers since
// the last call, so that plan can show them; a failure is logged and
// retried with the next run.
func (t *triggers) journal(ctx context.Context, policy string, log triggerLog) {
	if t == nil || log == nil {
		return
	}
	t.mu.Lock()
	var fs []journal.TriggerFiring
	var sts []*triggerStatus
	if pt := t.byPolicy[policy]; pt != nil {
		for _, st := range pt.all() {
			if st.Fired > st.journaled {
				fs = append(fs, journal.TriggerFiring{Policy: policy, Trigger: st.Trigger, Fired: st.Fired - st.journaled,
					LastFired: st.LastFired, LastSlot: st.LastSlot, Detail: st.Detail})
				sts = append(sts, st)
			}
		}
	}
	t.mu.Unlock()
	if len(fs) == 0 {
		return
	}
	if err := log.RecordTriggerFirings(context.WithoutCancel(ctx), fs); err != nil {
		t.logger.Warn("Cannot journal trigger firings", "policy", policy, "err", err)
		return
	}
	t.mu.Lock()
	for i, st := range sts {
		st.journaled += fs[i].Fired
	}
	t.mu.Unlock()
}

// all lists the statuses of the policy's triggers.
func (pt *policyTriggers) all() []*triggerStatus {
	var out []*triggerStatus
	for _, pw := range pt.prices {
		out = append(out, pw.status)
	}
	for _, aw := range pt.accounts {
		out = append(out, aw.status)
	}
	if pt.slot != nil {
		out = append(out, pt.slot.status)
	}
	return out
}

// statuses returns the firings of policy's triggers, in the policy's order.
func (t *triggers) statuses(p *policies.Policy) []triggerStatus {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	pt := t.byPolicy[p.Name]
	if pt == nil {
		return nil
	}
	var out []triggerStatus
	for _, st := range pt.all() {
		out = append(out, *st)
	}
	order := p.Triggers.Describe()
	slices.SortFunc(out, func(a, b triggerStatus) int {
		return slices.Index(order, a.Trigger) - slices.Index(order, b.Trigger)
	})
	return out
}

// daemonTriggers returns the daemon's triggers, firing runs through sched
// and watching the chain over the RPC's websocket (chain.ws_url, else
// derived from chain.rpc_url), polling at chain.watch_poll through
// submitter while it does not serve.
func daemonTriggers(e env, submitter Submitter, sched *scheduler) *triggers {
	ch := e.cfg.Chain
	url := ch.WSURL.Reveal()
	if url == "" {
		url = chain.WebsocketURL(ch.RPCURL.Reveal())
	}
	var t *triggers
	w := watch.New(watch.Options{URL: url, Commitment: rpc.CommitmentType(ch.Commitment), Poll: ch.WatchPoll,
		Reader: submitter, Logger: e.logger.With("component", "watch"),
		OnChange: func(c watch.Change) { t.changed(c) },
		OnMode: func(m watch.Mode, _ string) {
			polling := 0.0
			if m == watch.ModePolling {
				polling = 1
			}
			e.metrics.WatchPolling.Set(polling)
		}})
	t = newTriggers(e, w, sched.fire)
	return t
}
