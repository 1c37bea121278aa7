package keeper

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/jupiter"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/keeper/notify"
	"github.com/keeper-project/keeper/keeper/sim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
	"github.com/keeper-project/keeper/signer"
)

// These tests run keeper against keeper/sim with no sockets: the market
// client, the chain client and the webhook notifier get an *http.Client
// whose transport (simNet) calls the simulator's handlers in-process. Run
// inside a testing/synctest bubble, the simulator's clock (chainsim.RealClock)
// and keeper's clock are the bubble's virtual time, so scenario events, slots,
// blockhash expiry, poll intervals and cron ticks all move together and only
// when every goroutine is idle: nothing waits for real time and every run
// interleaves the same way.

// Hosts the simulated services answer on (never dialled: simNet serves them).
const (
	simMarketHost = "127.0.0.1:7070"
	simRPCHost    = "127.0.0.1:7071"
	simJitoHost   = "127.0.0.1:7072"
	simHookHost   = "127.0.0.1:7073"
)

// simConfigYAML points keeper at the simulated services. The operations
// endpoint is off (a real listener would keep the bubble's clock from moving).
const simConfigYAML = `market:
  base_url: http://` + simMarketHost + `/v1
  program_id: SimMarket1111111111111111111111111111111111
  earn_program_id: SimEarn111111111111111111111111111111111111
chain:
  rpc_url: http://` + simRPCHost + `
  jito_url: http://` + simJitoHost + `
  commitment: confirmed
  dex_a_program: SimDexA111111111111111111111111111111111111
  dex_b_program: SimDexB111111111111111111111111111111111111
journal: { dsn: "sqlite::memory:" }
http: { listen: "" }
policies: ["policies/*.yaml"]
kill_switch: pause
prices:
  feeds:
    4LZC4BmvoqqE2PGbnk2cYiJtDCpVcmyRA4kkLQPSAvo4: { pyth: eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a }
    So11111111111111111111111111111111111111112: { pyth: ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d }
    7nHb7C2C8MiEzeFPNk3mbnbqcJq1DK8UfTC6eGSDxic: { pyth: 7122c10c349001cbae6f2ca7c4355db676df53a6938450f848a0fc3c2a2ee0a2 }
    AZ1D9g7XaFSfFTc8D6ajfZ2w5zu5uGesVzbgJMYUGpe4: { pyth: 2c285935c3abc82c558383065e91c812ee06acf061a93394d7f289900f45d864 }
notifiers:
  - { name: hook, type: webhook, url: "http://` + simHookHost + `/notify", dedup_window: 1m }
`

// hookRecorder is a webhook endpoint that keeps every JSON message posted.
type hookRecorder struct {
	mu  sync.Mutex
	got []notify.Message
}

// ServeHTTP records one posted message.
func (h *hookRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m notify.Message
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.got = append(h.got, m)
	h.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// messages returns what was posted so far.
func (h *hookRecorder) messages() []notify.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.got)
}

// landings records every transaction the simulated chain lands.
type landings struct {
	mu  sync.Mutex
	txs []chainsim.Landed
}

func (l *landings) add(x chainsim.Landed) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.txs = append(l.txs, x)
}

// paidBy returns the landed transactions whose fee payer is wallet.
func (l *landings) paidBy(wallet solana.PublicKey) []chainsim.Landed {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []chainsim.Landed
	for _, x := range l.txs {
		if keys := x.AccountKeys; len(keys) > 0 && keys[0] == wallet {
			out = append(out, x)
		}
	}
	return out
}

// simWorld is what outlives a keeper process: the simulator, the config,
// the operator's key, the network and the webhook. Create it inside a
// synctest bubble so the simulator's clock is the bubble's.
type simWorld struct {
	sim    *sim.Sim
	cfg    *config.Config
	signer *signer.Signer
	net    *simNet
	hook   *hookRecorder
	landed *landings
	// journalOf, when set, is the journal open gives keeper in place of
	// the real one it opened.
	journalOf func(*journal.Journal) Journal
}

// simOptions adjust a simWorld.
type simOptions struct {
	scenario *scenario.Scenario
	faults   faults.Faults
	// configYAML replaces simConfigYAML.
	configYAML string
	// wallNow times network calls (benchmarks); default time.Now.
	wallNow func() time.Time
}

// newSimWorld starts a simulator on the default scenario (or o.scenario)
// whose wallet is a fresh key, and a config pointing at it whose policies
// folder is empty.
func newSimWorld(tb testing.TB, o simOptions) *simWorld {
	tb.Helper()
	if o.configYAML == "" {
		o.configYAML = simConfigYAML
	}
	dir := tb.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "policies"), 0o755); err != nil {
		tb.Fatal(err)
	}
	cfg, err := config.Load(filepath.Join(dir, "keeper.yaml"), dir, []byte(o.configYAML), func(string) (string, bool) { return "", false })
	if err != nil {
		tb.Fatalf("config: %v", err)
	}
	key, err := signer.Generate()
	if err != nil {
		tb.Fatal(err)
	}
	armed, err := key.WithGuard(GuardConfig(cfg))
	if err != nil {
		tb.Fatalf("guard: %v", err)
	}
	s, err := sim.New(sim.Options{Clock: chainsim.RealClock{}, Wallet: key.PublicKey(), Scenario: o.scenario, Faults: o.faults,
		OnUnknownRoute: func(method, path string) { tb.Errorf("keeper called an unknown market route: %s %s", method, path) }})
	if err != nil {
		tb.Fatalf("sim: %v", err)
	}
	w := &simWorld{sim: s, cfg: cfg, signer: armed, hook: &hookRecorder{}, landed: &landings{}}
	w.net = &simNet{now: time.Now, hosts: map[string]http.Handler{simMarketHost: s.Handlers().Market, simRPCHost: s.Handlers().RPC,
		simJitoHost: s.Handlers().Jito, simHookHost: w.hook}}
	if o.wallNow != nil {
		w.net.now = o.wallNow
	}
	s.Chain().OnLanded(w.landed.add)
	return w
}

// advance lets d of virtual time pass and runs the scenario events that
// became due (requests run them too; accessors do not).
func (w *simWorld) advance(tb testing.TB, d time.Duration) {
	tb.Helper()
	time.Sleep(d)
	if _, err := w.sim.Events().RunDue(); err != nil {
		tb.Fatalf("scenario events: %v", err)
	}
}

// wallet is the operator's wallet.
func (w *simWorld) wallet() solana.PublicKey { return w.signer.PublicKey() }

// simKeeper is one keeper process of a simWorld.
type simKeeper struct {
	*Keeper
	journal *journal.Journal
}

// open starts a keeper process on the journal at dsn ("" for a fresh
// in-memory one), with market and chain clients on the world's network and
// a notifier posting to the world's webhook. It closes when the test ends.
func (w *simWorld) open(tb testing.TB, dsn string) *simKeeper {
	tb.Helper()
	if dsn == "" {
		dsn = "sqlite::memory:"
	}
	j, err := journal.Open(context.Background(), dsn, journal.Options{})
	if err != nil {
		tb.Fatalf("journal: %v", err)
	}
	client := w.net.client()
	mo := marketOptions(w.cfg, w.wallet().String(), "test", NewMetrics(nil), slog.New(slog.DiscardHandler))
	mo.HTTPClient = client
	mk, err := api.New(mo)
	if err != nil {
		tb.Fatalf("market client: %v", err)
	}
	co := chainOptions(w.cfg, NewMetrics(nil), slog.New(slog.DiscardHandler))
	co.HTTPClient = client
	ch, err := chain.New(co)
	if err != nil {
		tb.Fatalf("chain client: %v", err)
	}
	var kj Journal = j
	if w.journalOf != nil {
		kj = w.journalOf(j)
	}
	var sw action.Swapper
	if w.cfg.Swap.BaseURL != "" {
		jc, err := jupiter.New(jupiter.Options{BaseURL: w.cfg.Swap.BaseURL.Reveal(), HTTPClient: client})
		if err != nil {
			tb.Fatalf("jupiter client: %v", err)
		}
		sw = jc
	}
	k, err := New(Options{Config: w.cfg, Market: mk, Signer: w.signer, Submitter: ch, Journal: kj, Swapper: sw})
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	k.notifier = w.notifier(tb, k, false)
	k.exec = newExecutor(k.env, k.deps, k.notifier, k.obs, k.sweeper.poke, k.verifyLanded) // with the world's notifier
	k.sweeper.sweep = k.exec.Sweep
	tb.Cleanup(func() { _ = k.Close(); _ = j.Close() })
	return &simKeeper{Keeper: k, journal: j}
}

// notifier is keeper's dispatcher with the config's webhook, posting over
// the world's network (and, with postDryRun, dry runs' messages too).
func (w *simWorld) notifier(tb testing.TB, k *Keeper, postDryRun bool) *notify.Dispatcher {
	tb.Helper()
	n := w.cfg.Notifiers[0]
	hook, err := notify.NewWebhook(n.Name, n.URL.Reveal(), notify.Format(n.Type), w.net.client(), n.Timeout)
	if err != nil {
		tb.Fatalf("webhook: %v", err)
	}
	return notify.New(notify.Options{Senders: []notify.Sender{hook}, DedupWindow: n.DedupWindow, Now: k.now, PostDryRun: postDryRun})
}

// usePolicies copies example policy files into the world's policies folder.
func (w *simWorld) usePolicies(tb testing.TB, files ...string) {
	tb.Helper()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join("..", "examples", "policies", f))
		if err != nil {
			tb.Fatal(err)
		}
		w.writePolicy(tb, f, string(data))
	}
}

// useUSDCRepay writes the example auto-repay.yaml without its wrapped-SOL
// policy, for tests that follow the USDC loan alone past the scenario's
// JITOSOL depeg.
func (w *simWorld) useUSDCRepay(tb testing.TB) {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("..", "examples", "policies", "auto-repay.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	usdc, _, found := strings.Cut(string(data), "\n  # The same for loans in wrapped SOL")
	if !found {
		tb.Fatal("examples/policies/auto-repay.yaml changed: its wrapped-SOL policy is not where it was")
	}
	w.writePolicy(tb, "auto-repay.yaml", usdc+"\n")
}

// writePolicy writes (or replaces) one policy file.
func (w *simWorld) writePolicy(tb testing.TB, name, text string) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(w.cfg.Dir, "policies", name), []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// removePolicy deletes one policy file.
func (w *simWorld) removePolicy(tb testing.TB, name string) {
	tb.Helper()
	if err := os.Remove(filepath.Join(w.cfg.Dir, "policies", name)); err != nil {
		tb.Fatal(err)
	}
}

// address is the address of a thing the scenario names.
func (w *simWorld) address(tb testing.TB, kind, name string) solana.PublicKey {
	tb.Helper()
	a, ok := w.sim.Accounts().Address(kind, name)
	if !ok {
		tb.Fatalf("scenario has no %s %q", kind, name)
	}
	return a
}

// actionsOf lists the journal's actions of policy, oldest first.
func (k *simKeeper) actionsOf(tb testing.TB, policy string) []journal.Action {
	tb.Helper()
	acts, err := k.journal.List(context.Background(), journal.Filter{Policy: policy})
	if err != nil {
		tb.Fatalf("journal list: %v", err)
	}
	slices.SortFunc(acts, func(a, b journal.Action) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return acts
}

// Close stops the keeper and closes its journal, as a process exit would.
func (k *simKeeper) Close() error {
	return errors.Join(k.Keeper.Close(), k.journal.Close())
}
