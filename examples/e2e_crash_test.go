package examples_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/keeper-project/keeper/internal/failpoint"
	"github.com/keeper-project/keeper/keeper/sim"
)

// crashSeeds is how many simulator seeds the crash matrix runs for each use case and fail point.
var crashSeeds = flag.Int("crash.seeds", 1, "seeds per use case and fail point of the crash matrix (use 10 or more for a long run)")

// The failpoint build of keeper, built once by the first crash test.
var (
	failpointOnce sync.Once
	failpointBin  string
	failpointErr  error
)

// needFailpointBinary returns keeper built with the failpoint build tag, next to the plain binary.
func needFailpointBinary(t *testing.T) string {
	t.Helper()
	needBinary(t)
	failpointOnce.Do(func() {
		failpointBin = filepath.Join(filepath.Dir(keeperBin), "keeper-failpoint")
		out, err := exec.Command(goTool(), "build", "-tags", "failpoint", "-o", failpointBin,
			"github.com/keeper-project/keeper/cmd/keeper").CombinedOutput()
		if err != nil {
			failpointErr = fmt.Errorf("go build -tags failpoint ./cmd/keeper: %w\n%s", err, out)
		}
	})
	if failpointErr != nil {
		t.Fatal(failpointErr)
	}
	return failpointBin
}

// goTool is the go command.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

// crashCase is a use case of the crash matrix: its policy files, when in the default scenario they
// act, and the action each of their policies must land. A case may also give the simulator
// arguments (simArgs: another scenario), change keeper's config (edit) and check the simulator's
// state once its actions landed (check).
type crashCase struct {
	name    string
	at      float64
	files   []string
	want    func(t *testing.T, s *simProc, st sim.ControlState) map[string]string
	simArgs func(t *testing.T) []string
	edit    func(s *simProc, cfg map[string]any)
	check   func(t *testing.T, st sim.ControlState)
}

// startSim starts the simulator of case c with seed and extra arguments.
func (c crashCase) startSim(t *testing.T, seed int, extra ...string) *simProc {
	args := append([]string{"--seed", strconv.Itoa(seed)}, extra...)
	if c.simArgs != nil {
		args = append(args, c.simArgs(t)...)
	}
	return startSimWith(t, "--manual-clock", args...)
}

// config writes case c's config in w, changed further by more.
func (c crashCase) config(t *testing.T, w *workspace, more func(map[string]any)) string {
	return w.configEdited(t, c.name, c.files, func(cfg map[string]any) {
		if c.edit != nil {
			c.edit(w.sim, cfg)
		}
		if more != nil {
			more(cfg)
		}
	})
}

// checked runs case c's check of the simulator's state, if any.
func (c crashCase) checked(t *testing.T, s *simProc) {
	if c.check != nil {
		c.check(t, s.state(t))
	}
}

// crashCases cover every action kind: strategy-update and strategy-withdraw (vault upkeep), repay,
// rebalance, claim-withdrawals (a bundle), claim-fees and repay-collateral (deleverage, which sells
// once: e2e_deleverage_test.go).
var crashCases = []crashCase{
	{name: "vault-upkeep", at: 5, files: []string{vaultUpkeep}, want: func(t *testing.T, s *simProc, _ sim.ControlState) map[string]string {
		vault := s.address(t, "vault", "alpha-vault")
		return map[string]string{"track-best-quote": vault, "sweep-idle-principal": vault}
	}},
	{name: "auto-repay", at: 10, files: []string{autoRepay}, want: func(_ *testing.T, _ *simProc, st sim.ControlState) map[string]string {
		return map[string]string{"auto-repay": st.Loans["repay-me"].Address}
	}},
	{name: "rebalance", at: 20, files: []string{rebalance}, want: func(_ *testing.T, _ *simProc, st sim.ControlState) map[string]string {
		return map[string]string{"rebalance-dex-a": st.Positions["pos-a"].Mint}
	}},
	{name: "claim-withdrawals", at: 20, files: []string{claimWithdrawals}, want: func(_ *testing.T, _ *simProc, st sim.ControlState) map[string]string {
		return map[string]string{"claim-earn-withdrawals": st.Requests["usdc-earn/r-full"].Address}
	}},
	{name: "claim-fees", at: 25, files: []string{claimFees}, want: func(_ *testing.T, _ *simProc, st sim.ControlState) map[string]string {
		return map[string]string{"claim-fees-dex-b": st.Positions["pos-b"].Mint}
	}},
	deleverageCase,
}

// TestE2ECrashMatrix kills the real binary (SIGKILL, from inside, at a named fail point) at every
// point of the action path, for every use case and seed, against `keeper sim` as a separate
// process; then starts it again. Each intended action must land exactly once, none may be lost,
// the wallet must have signed only what the journal holds, and a further run must do nothing. The
// in-recovery point is reached by crashing once after the signatures are journaled and again while
// recovery settles that action.
func TestE2ECrashMatrix(t *testing.T) {
	bin := needFailpointBinary(t)
	t.Parallel()
	for _, c := range crashCases {
		for _, point := range failpoint.Points {
			for seed := 1; seed <= *crashSeeds; seed++ {
				t.Run(fmt.Sprintf("%s/%s/seed-%d", c.name, point, seed), func(t *testing.T) {
					t.Parallel()
					crashAndRecover(t, bin, c, point, seed)
				})
			}
		}
	}
}

// crashAndRecover runs one cell of the crash matrix.
func crashAndRecover(t *testing.T, bin string, c crashCase, point string, seed int) {
	s := c.startSim(t, seed)
	w := newWorkspace(t, s)
	s.until(t, c.at)
	want := c.want(t, s, s.state(t))
	cfg := c.config(t, w, nil)
	args := []string{"run", "--once", "--config", cfg, "--log-format", "json"}
	kills := []string{point}
	if point == failpoint.InRecovery {
		kills = []string{failpoint.AfterSignatures, failpoint.InRecovery}
	}
	for _, kill := range kills {
		r := s.runActingWith(t, procOptions{bin: bin, env: []string{failpoint.Env + "=" + kill}}, w.dir, args...)
		if r.code != -1 {
			t.Fatalf("armed at %s, keeper exited %d instead of dying there; stderr:\n%s", kill, r.code, r.stderr)
		}
	}
	if r := w.once(t, cfg); testing.Verbose() {
		t.Logf("restarted keeper's stderr:\n%s", r.stderr)
	}
	landedOnceAfterCrash(t, w, cfg, want, false)
	w.once(t, cfg)
	w.nothingNew(t, cfg, s.state(t))
	c.checked(t, s)
}

// landedOnceAfterCrash checks the journal and the chain after a crash and a restart: each policy of
// want has exactly one landed action on its target; over all of the policy's actions, exactly one
// journaled transaction is on chain (every answer of the default scenario's use cases is one
// transaction; part of a sequence may also have landed under an expired action that a new plan for
// the rest superseded, rule superseded-after-partial); every other action of the policy was closed without
// landing anything (an expired attempt superseded by a plan with fresher inputs); and every
// transaction the wallet signed on chain is one the journal holds. With others, actions of policies
// not in want (the scenario's later events may make them act) are allowed.
func landedOnceAfterCrash(t *testing.T, w *workspace, cfg string, want map[string]string, others bool) {
	t.Helper()
	acts := w.newActions(t, cfg)
	st := w.sim.state(t)
	landed, _ := w.sim.checkSignedInJournal(t, st.Signed, acts)
	w.seenSigned = len(st.Signed)
	onChain := map[string]bool{}
	for _, sig := range landed {
		onChain[sig] = true
	}
	got, txs := map[string]int{}, map[string]int{}
	for _, a := range acts {
		n := 0
		for _, sig := range a.Signatures {
			if onChain[sig] {
				n++
			}
		}
		if want[a.Policy] != "" {
			txs[a.Policy] += n
		}
		switch {
		case want[a.Policy] == "" && others:
		case want[a.Policy] == "":
			t.Errorf("unexpected action %+v", a)
		case a.State == "landed" && a.Target == want[a.Policy]:
			got[a.Policy]++
			if n == 0 {
				t.Errorf("landed action of %s has none of its %d journaled transactions on chain", a.Policy, len(a.Signatures))
			}
		case a.State == "skipped" && a.Rule == "superseded-after-partial" && n > 0:
		case n != 0:
			t.Errorf("action of %s in state %s (%s) has %d transactions on chain", a.Policy, a.State, a.Rule, n)
		case a.State != "skipped" || a.Rule != "superseded":
			t.Errorf("action of %s: state %s (%s), want landed, or superseded without landing", a.Policy, a.State, a.Rule)
		}
	}
	for p := range want {
		if got[p] != 1 {
			t.Errorf("policy %s landed %d actions on %s, want exactly one", p, got[p], want[p])
		}
		if txs[p] != 1 {
			t.Errorf("policy %s has %d journaled transactions on chain, want the one of its answer, once", p, txs[p])
		}
	}
}
