package examples_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim"

	"github.com/keeper-project/keeper/internal/redact"
)

// benchActionScenario is one loan of the wallet under auto-repay's trigger: 10 SOL against 1,100
// USDC (health ~0.14).
var benchActionScenario = lendingScenario("action-bench", "10", "100000", "100000", false) +
	`  - {name: low, borrower: $wallet, collateral: [{mint: SOL, amount: "10"}], ledgers: [{strategy: beta, principal: "1100", term: 30d}]}
`

// benchDaemonScenario adds a second loan under the trigger to benchActionScenario, for a daemon
// that repays one loan a pass.
var benchDaemonScenario = benchActionScenario +
	`  - {name: low2, borrower: $wallet, collateral: [{mint: SOL, amount: "10"}], ledgers: [{strategy: beta, principal: "1100", term: 30d}]}
`

// benchActionLatency is injected on every market, RPC and Jito request.
const benchActionLatency = 20 * time.Millisecond

// BenchmarkE2EActionPath measures one repay's action path against `keeper sim` as a separate
// process over loopback sockets, with benchActionLatency on every request and keeper's default chain
// settings (chain.poll 1s; chain.confirm websocket or poll), one fresh simulator per iteration; the
// repay is sent by RPC, or as a Jito bundle with keeper's tip (submit=bundle; tips=pinned with the
// engine's tip accounts in chain.tip.accounts, so that keeper never asks for them). keeper runs as
// `keeper run --once`, or (process=daemon) as `keeper run` repaying one loan a pass, a pass every
// second (every three for a bundle, so that the block engine's limit of one request a second does
// not hold the second bundle back), and its second repay is measured: the first is made by a
// process that never acted before, whose first decoding of each kind of answer, first use of each
// journal statement and first connections fall on its path, as they do in every `run --once`.
//
//   - keeper-ms: from the intent journaled to the outcome journaled (keeper's journal);
//   - floor-ms: what no client can avoid, from the simulator's own record: the build's and the
//     send's round trips (each the injected latency, as long as the simulator's timer actually held
//     the request, and the time the service worked on its answer, both of which it reports in a
//     Server-Timing header), and the chain time from the moment the sent transaction reached the
//     chain (its send served, or its bundle accepted by the block engine) to the moment it was
//     confirmed (the end of its slot), or, when keeper confirms on the websocket, to the moment the
//     simulator started writing its signature notification (the slot's timer and the block's work
//     on the simulator's side come between the two);
//   - server-ms, latency-ms: the services' own time and the injected latency within floor-ms (the
//     build's and the send's; the latency a little over twice benchActionLatency);
//   - ratio: keeper-ms / floor-ms (the goal is 1.05);
//   - guarded-ratio: keeper-ms / (floor-ms + the simulation's round trip), the floor of a client that
//     simulates what it signs, as keeper's guard must;
//   - one metric per phase of the path, in milliseconds (see actionPhases), which add up to
//     keeper-ms.
//
// Run: go test ./examples -run '^$' -bench BenchmarkE2EActionPath -benchtime 5x
func BenchmarkE2EActionPath(b *testing.B) {
	needBinary(b)
	scenario := filepath.Join(b.TempDir(), "action.yaml")
	if err := os.WriteFile(scenario, []byte(benchActionScenario), 0o644); err != nil {
		b.Fatal(err)
	}
	daemonScenario := filepath.Join(b.TempDir(), "action-daemon.yaml")
	if err := os.WriteFile(daemonScenario, []byte(benchDaemonScenario), 0o644); err != nil {
		b.Fatal(err)
	}
	bundlePolicy := writeBenchPolicy(b, "auto-repay.yaml", bundleSubmit(b, autoRepay))
	daemonPolicy := writeBenchPolicy(b, "auto-repay-daemon.yaml", daemonPace(b, readPolicyFile(b, autoRepay), "1s"))
	daemonBundlePolicy := writeBenchPolicy(b, "auto-repay-daemon-bundle.yaml", daemonPace(b, bundleSubmit(b, autoRepay), "3s"))
	for _, c := range []struct {
		name string
		actionCase
	}{
		{"confirm=websocket", actionCase{confirm: "websocket", policy: autoRepay}},
		{"confirm=websocket,journal=existing", actionCase{confirm: "websocket", policy: autoRepay, existing: true}},
		{"confirm=poll", actionCase{confirm: "poll", policy: autoRepay}},
		{"submit=bundle", actionCase{confirm: "websocket", policy: bundlePolicy}},
		{"submit=bundle,tips=pinned", actionCase{confirm: "websocket", policy: bundlePolicy, pinTips: true}},
		{"submit=bundle,tips=kept", actionCase{confirm: "websocket", policy: bundlePolicy, keptTips: true}},
		{"confirm=websocket,process=daemon", actionCase{confirm: "websocket", policy: daemonPolicy, daemon: true}},
		{"submit=bundle,process=daemon", actionCase{confirm: "websocket", policy: daemonBundlePolicy, daemon: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var total actionTimes
			phases := make([]time.Duration, len(actionPhases))
			for range b.N {
				scen := scenario
				if c.daemon {
					scen = daemonScenario
				}
				at, ph := actionOnce(b, scen, c.actionCase)
				total.add(at)
				for i, d := range ph {
					phases[i] += d
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(total.keeper.Milliseconds())/n, "keeper-ms")
			b.ReportMetric(float64(total.floor.Milliseconds())/n, "floor-ms")
			b.ReportMetric(float64(total.server.Microseconds())/1000/n, "server-ms")
			b.ReportMetric(float64(total.latency.Microseconds())/1000/n, "latency-ms")
			b.ReportMetric(total.keeper.Seconds()/total.floor.Seconds(), "ratio")
			b.ReportMetric(total.keeper.Seconds()/(total.floor+total.simulation).Seconds(), "guarded-ratio")
			for i, name := range actionPhases {
				b.ReportMetric(float64(phases[i].Microseconds())/1000/n, name+"-ms")
			}
		})
	}
}

// actionPhases name the phases of one action, in path order, by the timestamps that end them:
// the attempt journaled after the durable intent; the build's round trip and its journal record;
// guard, signing and the simulation's round trip; the signatures' durable commit and the
// submission's record; the send until the transaction reached the chain (for a bundle, its tip
// made and journaled, and the block engine's acceptance); the wait until the chain executed it (a
// bundle runs in the slot after its acceptance; zero for an RPC send); the chain until the
// transaction's slot was confirmed; the simulator's signature notification until its write
// started (zero when keeper polled); from then until the outcome was journaled.
var actionPhases = []string{"intent", "build", "sim", "sigs", "send", "engine", "chain", "notify", "settle"}

// bundleSubmit returns the policy file at path with every policy submitting by Jito bundle.
func bundleSubmit(t testing.TB, path string) []byte {
	t.Helper()
	data := readPolicyFile(t, path)
	out := bytes.ReplaceAll(data, []byte("submit: { mode: rpc }"), []byte("submit: { mode: bundle }"))
	if bytes.Equal(out, data) {
		t.Fatalf("%s: no `submit: { mode: rpc }` to change", path)
	}
	return out
}

// actionCase is how one benchmark's repay is configured: chain.confirm, the policy file, whether
// chain.tip.accounts names the engine's tip accounts, whether the journal holds the engine's tip
// accounts as an earlier run left them a minute before, whether the journal exists as an earlier
// process left it (existing: as a `run --once` from a timer finds it; otherwise keeper creates
// it), and whether keeper runs as a daemon.
type actionCase struct {
	confirm, policy                     string
	pinTips, keptTips, existing, daemon bool
}

// actionTimes are one repay's times: keeper's, the floor's, the services' and the injected
// latency's shares of the floor, and the round trip of the simulation a guarded client adds to it.
type actionTimes struct {
	keeper, floor, server, latency, simulation time.Duration
}

// add adds o to t.
func (t *actionTimes) add(o actionTimes) {
	t.keeper, t.floor, t.server, t.simulation = t.keeper+o.keeper, t.floor+o.floor, t.server+o.server, t.simulation+o.simulation
	t.latency += o.latency
}

// actionOnce runs `keeper run --once` as c says on a fresh simulator and returns the repay's times
// and its phases (see actionPhases).
func actionOnce(b *testing.B, scenario string, c actionCase) (actionTimes, []time.Duration) {
	b.StopTimer()
	l := benchActionLatency.String()
	s := startSimWith(b, "--control", "--scenario", scenario,
		"--faults", "market:latency="+l+",rpc:latency="+l+",jito:latency="+l)
	w := newWorkspace(b, s)
	var tips []string
	if c.pinTips {
		tips = s.state(b).TipAccounts
	}
	cfg := w.configEdited(b, "bench", []string{c.policy}, func(cfg map[string]any) {
		ch := section(cfg, "chain")
		delete(ch, "poll") // the default
		ch["confirm"] = c.confirm
		if tips != nil {
			section(ch, "tip")["accounts"] = tips
		}
	})
	switch {
	case c.keptTips:
		keepTips(b, filepath.Join(w.dir, "keeper.db"), s)
	case c.existing:
		createJournal(b, filepath.Join(w.dir, "keeper.db"))
	}
	b.StartTimer()
	act := runAction(b, w.dir, cfg, c.daemon)
	b.StopTimer()
	if len(act.Attempts) == 0 || len(act.Attempts[len(act.Attempts)-1].Signatures) != 1 {
		b.Fatalf("journal: %+v, want an attempt with one transaction", act)
	}
	a := act.Attempts[len(act.Attempts)-1]
	st := s.state(b)
	landed := landedRepay(b, st, a.Signatures[0].Signature, actions(c.daemon))
	send := "rpc sendTransaction"
	if bundled(st, a.Signatures[0].Signature) {
		send = "jito sendBundle"
	}
	build, sent := service(b, st, "market build_loan"), service(b, st, send)
	simulated := service(b, st, "rpc simulateTransaction", "rpc simulateBundle")
	t := actionTimes{keeper: act.SettledAt.Sub(act.CreatedAt), server: build.Mean() + sent.Mean(),
		latency:    build.MeanLatency() + sent.MeanLatency(),
		simulation: simulated.MeanLatency() + simulated.Mean()}
	notified := landed.ConfirmedAt
	if landed.NotifiedAt.After(notified) {
		notified = landed.NotifiedAt
	}
	t.floor = t.latency + t.server + notified.Sub(landed.SentAt)
	var phases []time.Duration
	marks := []time.Time{act.CreatedAt, a.CreatedAt, a.BuiltAt, a.SignedAt, a.SubmittedAt, landed.SentAt, landed.LandedAt,
		landed.ConfirmedAt, notified, act.SettledAt}
	for i := range actionPhases {
		phases = append(phases, marks[i+1].Sub(marks[i]))
	}
	if testing.Verbose() {
		ms := func(t time.Time) int64 { return t.Sub(act.CreatedAt).Milliseconds() }
		for _, e := range act.Attempts[:len(act.Attempts)-1] {
			b.Logf("earlier attempt %d: %s %s %s", e.Number, e.Outcome, e.Rule, e.Detail)
		}
		b.Logf("intent 0, attempt %d, built %d, signed %d, submitted %d, sent %d, executed %d, confirmed %d, notified %d, settled %d ms",
			ms(a.CreatedAt), ms(a.BuiltAt), ms(a.SignedAt), ms(a.SubmittedAt), ms(landed.SentAt), ms(landed.LandedAt), ms(landed.ConfirmedAt),
			ms(notified), ms(act.SettledAt))
	}
	return t, phases
}

// service returns the simulator's record of its answers to the first of methods (keyed as
// sim.ControlState.Service is) that it answered: their number, its work on them and the latency
// that held them back.
func service(b *testing.B, st sim.ControlState, methods ...string) sim.ServiceTime {
	for _, m := range methods {
		if s, ok := st.Service[m]; ok && s.Answers > 0 {
			return s
		}
	}
	b.Fatalf("the simulator answered none of %v: %+v", methods, st.Service)
	return sim.ServiceTime{}
}

// keepTips writes into the journal at path the simulator's tip accounts as keeper keeps the block
// engine's answer, asked a minute ago.
func keepTips(b *testing.B, path string, s *simProc) {
	j, err := journal.Open(b.Context(), "sqlite:"+path, journal.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	kept := journal.EngineTipAccounts{Accounts: s.state(b).TipAccounts, AskedAt: time.Now().Add(-time.Minute)}
	if err := j.SaveEngineTipAccounts(b.Context(), redact.URL(s.urls.Jito), kept); err != nil {
		b.Fatal(err)
	}
}

// createJournal creates the journal at path and closes it, as an earlier process leaves it.
func createJournal(b *testing.B, path string) {
	b.Helper()
	j, err := journal.Open(b.Context(), "sqlite:"+path, journal.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := j.Close(); err != nil {
		b.Fatal(err)
	}
}

// landedRepay returns the simulator's record of the repay sig, and checks that it landed
// without an error, and that the simulator saw no more than n repays, each with at most a tip.
func landedRepay(b *testing.B, st sim.ControlState, sig string, n int) sim.SignedTx {
	if len(st.Signed) > 2*n {
		b.Fatalf("the simulator saw %+v, want %d landed repays and at most a tip each", st.Signed, n)
	}
	for _, t := range st.Signed {
		if t.Signature == sig && t.Err == "" {
			return t
		}
	}
	b.Fatalf("the simulator saw %+v, not the repay %s landed", st.Signed, sig)
	return sim.SignedTx{}
}

// journaledAction returns the latest of the n actions of the journal at path, all landed.
func journaledAction(b *testing.B, path string, n int) journal.Action {
	ctx := context.Background()
	j, err := journal.Open(ctx, "sqlite:"+path, journal.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	acts, err := j.List(ctx, journal.Filter{})
	if err != nil || len(acts) != n {
		b.Fatalf("journal: %+v, %v; want %d landed actions", acts, err, n)
	}
	latest := acts[0]
	for _, a := range acts {
		if a.State != journal.StateLanded {
			b.Fatalf("journal: %+v; want %d landed actions", acts, n)
		}
		if a.CreatedAt.After(latest.CreatedAt) {
			latest = a
		}
	}
	return latest
}

// runAction runs keeper with the configuration cfg in dir until it has landed its repays, and
// returns the one it measures: the one repay of `keeper run --once`, or the second of a daemon.
func runAction(b *testing.B, dir, cfg string, daemon bool) journal.Action {
	path := filepath.Join(dir, "keeper.db")
	if !daemon {
		runKeeper(b, dir, "run", "--once", "--config", cfg).wantExit(b, 0)
		return journaledAction(b, path, 1)
	}
	d := startKeeper(b, dir, &syncBuffer{}, "run", "--config", cfg)
	select {
	case <-d.stderr.linesContaining("Action landed", 2):
	case <-d.exited:
		b.Fatalf("keeper exited before landing two repays; log:\n%s", d.stderr.String())
	case <-time.After(procTimeout):
		b.Fatalf("keeper did not land two repays within %s; log:\n%s", procTimeout, d.stderr.String())
	}
	if code := d.stop(b); code != 0 {
		b.Fatalf("keeper exited with %d; log:\n%s", code, d.stderr.String())
	}
	return journaledAction(b, path, 2)
}

// actions is how many repays a run lands: two for a daemon, one for `run --once`.
func actions(daemon bool) int {
	if daemon {
		return 2
	}
	return 1
}

// bundled reports whether the simulator saw the transaction sig land in a bundle.
func bundled(st sim.ControlState, sig string) bool {
	for _, t := range st.Signed {
		if t.Signature == sig {
			return t.BundleID != ""
		}
	}
	return false
}

// readPolicyFile returns the contents of the policy file at path.
func readPolicyFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// writeBenchPolicy writes data as a policy file named name in a temporary folder and returns its path.
func writeBenchPolicy(b *testing.B, name string, data []byte) string {
	path := filepath.Join(b.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// daemonPace returns the policy file data with every policy passing every interval and acting on
// one loan a pass.
func daemonPace(b *testing.B, data []byte, interval string) []byte {
	out := bytes.ReplaceAll(data, []byte(`schedule: "@every 5s"`), []byte(`schedule: "@every `+interval+`"`))
	out = bytes.ReplaceAll(out, []byte("    limits:\n"), []byte("    limits:\n      max_actions_per_run: 1\n"))
	if bytes.Equal(out, data) || !bytes.Contains(out, []byte("max_actions_per_run")) {
		b.Fatalf("no schedule or limits to change in %s", data)
	}
	return out
}
