package keeper

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/policies"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/notify"
	"github.com/keeper-project/keeper/signer"
)

// testConfigYAML is a minimal config; the kill switch resolves into the
// test's temporary folder.
const testConfigYAML = `market:
  program_id: SimMarket1111111111111111111111111111111111
  earn_program_id: SimEarn111111111111111111111111111111111111
chain:
  dex_a_program: SimDexA111111111111111111111111111111111111
  dex_b_program: SimDexB111111111111111111111111111111111111
journal: { dsn: "sqlite::memory:" }
policies: ["policies/*.yaml"]
kill_switch: pause
`

// usdcMint is the mint the test repays in.
const usdcMint = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"

// testRun is the run every test executes plans in.
var testRun = runInfo{Policy: "repay-loans", ID: "run-1", Tick: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)}

// world is what outlives a keeper process: the config, the operator's key,
// the market and the chain.
type world struct {
	cfg    *config.Config
	signer *signer.Signer
	market *fakeMarket
	sub    *fakeSubmitter
	log    *eventLog
	crash  *crashPoint
	// now, when set, is the clock of the journals open opens.
	now func() time.Time
	// holdWrite, when set, runs before the journal records a build or a
	// submission: a test holds the write there, or fails it with an error.
	holdWrite func(step string) error
	// fees, when set, is the chain's fee market: keeper prices what it
	// lands (see route_test.go); unset, open turns pricing off
	// (chain.priority.off), as an operator would for a chain without one.
	fees *fakeFees
}

func newWorld(tb testing.TB) *world {
	tb.Helper()
	cfg, err := config.Load("keeper.yaml", tb.TempDir(), []byte(testConfigYAML), func(string) (string, bool) { return "", false })
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
	w := &world{cfg: cfg, signer: armed, log: &eventLog{}, crash: &crashPoint{}}
	w.market, err = newFakeMarket(armed.PublicKey(), cfg.Market.ProgramID, cfg.Market.EarnProgramID, w.log, w.crash)
	if err != nil {
		tb.Fatal(err)
	}
	w.sub = newFakeSubmitter(armed.PublicKey(), w.log, w.crash)
	tb.Cleanup(func() {
		_, _, _, problems := w.sub.snapshot()
		for _, p := range problems {
			tb.Errorf("submitter saw: %s", p)
		}
	})
	return w
}

// testKeeper is one keeper process of a world.
type testKeeper struct {
	*Keeper
	journal *journal.Journal
}

// open starts a keeper on the journal at dsn, with the world's fakes and
// the real signer and journal.
func (w *world) open(tb testing.TB, dsn string) *testKeeper {
	tb.Helper()
	j, err := journal.Open(context.Background(), dsn, journal.Options{Now: w.now})
	if err != nil {
		tb.Fatalf("journal: %v", err)
	}
	w.sub.watchJournal(j)
	w.sub.fees = w.fees
	w.cfg.Chain.Priority.Off = w.fees == nil
	k, err := New(Options{Config: w.cfg, Market: w.market, Signer: &stepSigner{Signer: w.signer, log: w.log, crash: w.crash}, Submitter: w.sub,
		Journal: &crashJournal{Journal: j, crash: w.crash, log: w.log, hold: func(step string) error {
			if w.holdWrite == nil {
				return nil
			}
			return w.holdWrite(step)
		}}})
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	tb.Cleanup(func() { _ = k.Close(); _ = j.Close() })
	return &testKeeper{Keeper: k, journal: j}
}

// newKeeper is a world and one keeper on an in-memory journal.
func newKeeper(tb testing.TB) (*world, *testKeeper) {
	w := newWorld(tb)
	return w, w.open(tb, "sqlite::memory:")
}

// action reads the journaled action id.
func (k *testKeeper) action(t testing.TB, id string) journal.Action {
	t.Helper()
	act, err := k.journal.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("journal get %s: %v", id, err)
	}
	return act
}

// actions is the value of keeper_actions_total for the test plans.
func (k *testKeeper) actions(o action.Outcome) float64 {
	return testutil.ToFloat64(k.metrics.Actions.WithLabelValues("repay-loans", string(signer.KindRepay), string(o)))
}

// refusals is the value of keeper_guard_refusals_total for rule.
func (k *testKeeper) refusals(rule string) float64 {
	return testutil.ToFloat64(k.metrics.GuardRefusals.WithLabelValues(rule))
}

// run executes p in the test run.
func (k *testKeeper) run(p action.Plan) action.Outcome {
	return k.exec.Execute(context.Background(), testRun.ID, p).Outcome
}

// repayPlan is a repay of 1 USDC on a loan, landed by RPC.
func repayPlan(id string) action.Plan {
	loan := "Loan" + id
	return action.Plan{ID: id, Policy: "repay-loans", Kind: signer.KindRepay, Target: loan,
		Request: policies.Request{BuildLoan: &market.BuildLoanRequest{Loan: loan, Steps: []market.Step{{Type: market.StepRepay, Params: market.StepParams{Loan: loan}}}}},
		Bounds:  signer.Bounds{MaxLamports: 50_000, MaxTokens: map[string]uint64{usdcMint: 1_000_000}},
		Mint:    usdcMint, Amount: 1_000_000, Reason: "ltv 0.91 above 0.90",
		Inputs: json.RawMessage(`{"ltv":0.91}`), Submit: action.Submit{Mode: journal.ModeRPC}}
}

// bundlePlan is repayPlan landed as a Jito bundle with a tip cap.
func bundlePlan(id string, tipCap uint64) action.Plan {
	p := repayPlan(id)
	p.Submit = action.Submit{Mode: journal.ModeBundle, TipCap: tipCap}
	return p
}

// keysOf are the idempotency keys of attempts 1..n of id.
func keysOf(id string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = id + "-" + strconv.Itoa(i+1)
	}
	return out
}

// crashJournal is the real journal with a crash point before each write,
// so a test can kill keeper between any two steps of the action path.
type crashJournal struct {
	Journal
	crash *crashPoint
	log   *eventLog
	// failTips is how many RecordTip calls fail with errJournalDown
	// before the journal works again.
	failTips int
	// hold runs before RecordBuilt and RecordSubmitted write; its error
	// fails the write.
	hold func(step string) error
}

// errJournalDown is the error of a journal write that failed.
var errJournalDown = errors.New("journal: disk I/O error")

// step logs a journal write and crashes there when armed.
func (j *crashJournal) step(name string) {
	j.log.add("%s", name)
	j.crash.hit(name)
}

func (j *crashJournal) Begin(ctx context.Context, in journal.Intent) (journal.Action, bool, error) {
	j.step("journal.Begin")
	return j.Journal.Begin(ctx, in)
}

func (j *crashJournal) Start(ctx context.Context, in journal.Intent) (journal.Action, journal.Attempt, bool, error) {
	j.step("journal.Start")
	return j.Journal.Start(ctx, in)
}

func (j *crashJournal) NewAttempt(ctx context.Context, id string) (journal.Attempt, error) {
	j.step("journal.NewAttempt")
	return j.Journal.NewAttempt(ctx, id)
}

func (j *crashJournal) RecordBuilt(ctx context.Context, id string, attempt int, b journal.Build) error {
	j.step("journal.RecordBuilt")
	if err := j.hold("journal.RecordBuilt"); err != nil {
		return err
	}
	return j.Journal.RecordBuilt(ctx, id, attempt, b)
}

func (j *crashJournal) RecordSigned(ctx context.Context, id string, attempt int, sigs []journal.SignedTx) error {
	j.step("journal.RecordSigned")
	return j.Journal.RecordSigned(ctx, id, attempt, sigs)
}

func (j *crashJournal) RecordSubmitted(ctx context.Context, id string, attempt int) error {
	j.step("journal.RecordSubmitted")
	if err := j.hold("journal.RecordSubmitted"); err != nil {
		return err
	}
	return j.Journal.RecordSubmitted(ctx, id, attempt)
}

func (j *crashJournal) RecordTip(ctx context.Context, id string, attempt int, t journal.Tip) error {
	j.step("journal.RecordTip")
	if j.failTips > 0 {
		j.failTips--
		return errJournalDown
	}
	return j.Journal.RecordTip(ctx, id, attempt, t)
}

func (j *crashJournal) Settle(ctx context.Context, id string, attempt int, out journal.Outcome) error {
	j.step("journal.Settle")
	if err := j.hold("journal.Settle"); err != nil {
		return err
	}
	return j.Journal.Settle(ctx, id, attempt, out)
}

// executeUntilCrash runs p and reports the crash point that killed it, or
// "" when it ran to the end.
func (k *testKeeper) executeUntilCrash(p action.Plan) (step string, out action.Outcome) {
	defer func() {
		if r := recover(); r != nil {
			c, ok := r.(crash)
			if !ok {
				panic(r)
			}
			step = c.step
		}
	}()
	return "", k.run(p)
}

// notes records delivered notifications.
type notes struct {
	mu  sync.Mutex
	got []notify.Message
}

func (n *notes) Name() string { return "test" }

func (n *notes) Send(_ context.Context, m notify.Message) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, m)
	return nil
}

func (n *notes) list() []notify.Message {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]notify.Message(nil), n.got...)
}

// recordNotes replaces k's notifier with one delivering to a recorder, and
// runs it until the test ends. Call it inside a synctest bubble.
func (k *testKeeper) recordNotes(t *testing.T) *notes {
	n := &notes{}
	k.notifier = notify.New(notify.Options{Senders: []notify.Sender{n}, Now: k.now})
	k.exec = newExecutor(k.env, k.deps, k.notifier, k.obs, k.sweeper.poke, k.verifyLanded) // with the test's notifier
	k.sweeper.sweep = k.exec.Sweep
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		k.notifier.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return n
}

// isNotFound reports whether err says the journal has no such action.
func isNotFound(err error) bool { return errors.Is(err, journal.ErrNotFound) }

// dsnIn is a journal file in dir.
func dsnIn(dir string) string { return "sqlite:" + filepath.Join(dir, "journal.db") }

// Close stops the keeper and closes its journal, as a process exit would.
func (k *testKeeper) Close() error {
	return errors.Join(k.Keeper.Close(), k.journal.Close())
}
