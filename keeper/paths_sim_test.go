package keeper

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/internal/action"

	"github.com/gagliardetto/solana-go"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/inject"
	"github.com/keeper-project/keeper/signer"
)

// TestHostileBuildIsRefusedOnSim makes the simulated market co-sign a
// hostile variant of the repay it builds, in every hostile mode, and checks
// that the guard refuses it under the mode's rule, that the refusal is
// journaled, that nothing was sent or landed, and that the next run does not
// build for that target again (its inputs did not change).
func TestHostileBuildIsRefusedOnSim(t *testing.T) {
	rules := map[faults.Hostile]signer.Rule{
		faults.HostileSystemTransfer: signer.RuleSOLTransfer,
		// The static check allows a repay to transfer its own mint within its
		// bound; the simulation shows the extra outflow.
		faults.HostileTokenTransfer:  signer.RuleSimulatedTokens,
		faults.HostileSetAuthority:   signer.RuleSetAuthority,
		faults.HostileUnknownProgram: signer.RuleProgramNotAllowed,
		faults.HostileFeePayer:       signer.RuleFeePayer,
		faults.HostileExtraSigner:    signer.RuleMissingSignature,
		// One unit more than the repay's amount: over its bound by one.
		faults.HostileOneOver:         signer.RuleSimulatedTokens,
		faults.HostileCloseToStranger: signer.RuleCloseAccount,
		faults.HostileApproveDelegate: signer.RuleTokenBound,
		// The repay's own transaction is honest; the appended one drains.
		faults.HostileSecondDrains: signer.RuleSOLTransfer,
	}
	for _, mode := range faults.AllHostile() {
		t.Run(mode.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { checkHostileRefused(t, mode, rules[mode]) })
		})
	}
}

func checkHostileRefused(t *testing.T, mode faults.Hostile, rule signer.Rule) {
	if rule == "" {
		t.Fatalf("no expected rule for hostile mode %s", mode)
	}
	w := newSimWorld(t, simOptions{})
	w.usePolicies(t, "auto-repay.yaml")
	k := w.open(t, "")
	usdc := w.usdc(t)
	// The stranger's token account exists, so a hostile transfer would land.
	if err := w.sim.Chain().Setup.MintTo(ids.Stranger(), usdc, 0); err != nil {
		t.Fatal(err)
	}
	w.advance(t, 15*time.Second)
	if err := w.sim.Faults().InjectHostile(mode); err != nil {
		t.Fatal(err)
	}
	lamports, tokens := w.sim.Accounts().Balance(w.wallet()), w.sim.Accounts().TokenBalance(w.wallet(), usdc)
	if err := k.RunOnce(t.Context()); !isActionsFailed(err) {
		t.Fatalf("RunOnce = %v, want ErrActionsFailed; journal %+v", err, k.actionsOf(t, "auto-repay"))
	}
	acts := k.actionsOf(t, "auto-repay")
	if len(acts) != 1 || acts[0].State != journal.StateRefused || acts[0].Rule != journal.Rule(rule) {
		t.Fatalf("journal %+v, want one action refused by rule %s", acts, rule)
	}
	if got := testutil.ToFloat64(k.metrics.GuardRefusals.WithLabelValues(string(rule))); got != 1 {
		t.Errorf("guard refusals{%s} = %v, want 1", rule, got)
	}
	checkNothingSent(t, w)
	if l, tok := w.sim.Accounts().Balance(w.wallet()), w.sim.Accounts().TokenBalance(w.wallet(), usdc); l != lamports || tok != tokens {
		t.Errorf("wallet %d lamports %d USDC units → %d / %d, want unchanged", lamports, tokens, l, tok)
	}
	if got := w.sim.Accounts().TokenBalance(ids.Stranger(), usdc); got != 0 {
		t.Errorf("the stranger received %d USDC units", got)
	}
	builds := len(w.net.buildKeys())
	if err := k.RunOnce(t.Context()); err != nil {
		t.Errorf("second RunOnce = %v, want nil (the refusal is settled)", err)
	}
	if got := len(w.net.buildKeys()); got != builds {
		t.Errorf("second run built %d more times for a refused target whose inputs did not change", got-builds)
	}
	if acts := k.actionsOf(t, "auto-repay"); len(acts) != 1 || acts[0].State != journal.StateRefused {
		t.Errorf("after the second run: %+v", acts)
	}
}

// checkNothingSent asserts that no transaction was sent to the RPC node or
// the block engine and none paid by the wallet landed.
func checkNothingSent(t *testing.T, w *simWorld) {
	t.Helper()
	sends := w.net.count(simRPCHost, "sendTransaction") + w.net.count(simJitoHost, "sendBundle") + w.net.count(simJitoHost, "sendTransaction")
	if sends != 0 {
		t.Errorf("%d transactions or bundles sent, want none", sends)
	}
	if landed := w.landed.paidBy(w.wallet()); len(landed) != 0 {
		t.Errorf("%d transactions paid by the wallet landed, want none", len(landed))
	}
}

// neverLandFirst makes the simulated chain accept but never land the first
// transaction (RPC) or bundle (Jito) keeper sends, however often the same
// bytes are sent again, so its blockhash expires unlanded; anything else
// lands normally.
type neverLandFirst struct {
	chain *chainsim.Chain
	mu    sync.Mutex
	first string // the first transaction's wire form, as sent
}

// before is a simNet hook.
func (d *neverLandFirst) before(c netCall, body []byte) {
	svc, method := chainsim.ServiceRPC, "sendTransaction"
	if c.Host == simJitoHost {
		svc, method = chainsim.ServiceJito, "sendBundle"
	}
	if c.Method != method {
		return
	}
	var req struct {
		Params []json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Params) == 0 {
		return
	}
	tx := firstTx(req.Params[0])
	d.mu.Lock()
	if d.first == "" {
		d.first = tx
	}
	drop := tx == d.first
	d.mu.Unlock()
	if drop {
		_ = d.chain.InjectFaults(svc, method, inject.FaultNeverLand)
	}
}

// firstTx is a sendTransaction's transaction, or a sendBundle's first one.
func firstTx(param json.RawMessage) string {
	var one string
	if json.Unmarshal(param, &one) == nil {
		return one
	}
	var many []string
	if json.Unmarshal(param, &many) == nil && len(many) > 0 {
		return many[0]
	}
	return string(param)
}

// TestExpiredAttemptIsRebuiltOnSim has the chain accept the first attempt's
// transactions but never land them: keeper must wait until their blockhash
// expires (about 60 s of chain time), then build attempt 2 with the next
// idempotency key, which lands. The first attempt's signatures never reach
// the chain; the action's effect happens once.
func TestExpiredAttemptIsRebuiltOnSim(t *testing.T) {
	cases := []struct {
		name, file, policy string
		wait               time.Duration
		mode               journal.Mode
	}{
		{"rpc", "auto-repay.yaml", "auto-repay", 15 * time.Second, journal.ModeRPC},
		{"bundle", "claim-withdrawals.yaml", "claim-earn-withdrawals", 25 * time.Second, journal.ModeBundle},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newSimWorld(t, simOptions{})
				w.usePolicies(t, tc.file)
				w.net.before = (&neverLandFirst{chain: w.sim.Chain()}).before
				k := w.open(t, "")
				w.advance(t, tc.wait)
				start := time.Now()
				if err := k.RunOnce(t.Context()); err != nil {
					t.Fatalf("RunOnce: %v", err)
				}
				if took := time.Since(start); took < chainsim.MaxBlockhashAge*chainsim.SlotDuration {
					t.Errorf("run took %v of chain time, less than a blockhash's life", took)
				}
				checkRebuilt(t, w, k, tc.policy, tc.mode)
			})
		})
	}
}

// checkRebuilt asserts the policy's one action expired in attempt 1 and
// landed in attempt 2, with keys ID-1 and ID-2.
func checkRebuilt(t *testing.T, w *simWorld, k *simKeeper, policy string, mode journal.Mode) {
	t.Helper()
	acts := k.actionsOf(t, policy)
	if len(acts) != 1 {
		t.Fatalf("%d actions, want 1", len(acts))
	}
	act := acts[0]
	if act.State != journal.StateLanded || len(act.Attempts) != 2 {
		t.Fatalf("action %s with %d attempts (%s: %s), want landed in attempt 2", act.State, len(act.Attempts), act.Rule, act.Detail)
	}
	a1, a2 := act.Attempts[0], act.Attempts[1]
	if a1.Outcome != journal.StateExpired || a1.Rule != "blockhash-expired" || a2.Outcome != journal.StateLanded || a2.Mode != mode {
		t.Errorf("attempts %s/%s (%s), %s/%s; want expired by blockhash-expired, then landed by %s", a1.Outcome, a1.Rule, a1.Detail, a2.Outcome, a2.Mode, mode)
	}
	if keys := w.net.buildKeys(); strings.Join(keys, ",") != act.ID+"-1,"+act.ID+"-2" {
		t.Errorf("build keys %v, want %s-1 then %s-2", keys, act.ID, act.ID)
	}
	for _, s := range a1.Signatures {
		if _, ok := w.sim.Chain().Ledger.Transaction(solana.MustSignatureFromBase58(s.Signature)); ok {
			t.Errorf("attempt 1 transaction %s landed after all", s.Signature)
		}
	}
	for _, s := range a2.Signatures {
		if x, ok := w.sim.Chain().Ledger.Transaction(solana.MustSignatureFromBase58(s.Signature)); !ok || x.Err != nil {
			t.Errorf("attempt 2 transaction %s: on chain %v, error %v", s.Signature, ok, x.Err)
		}
	}
}

// TestDryRunSignsNothingOnSim plans the repay under global and per-policy
// dry run: it is journaled as skipped under a dry- ID, and nothing is built,
// signed, simulated or sent; the loan is left as it is.
func TestDryRunSignsNothingOnSim(t *testing.T) {
	cases := []struct {
		name   string
		global bool
	}{{"config", true}, {"policy", false}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newSimWorld(t, simOptions{})
				if tc.global {
					w.usePolicies(t, "auto-repay.yaml")
					w.cfg.DryRun = true
				} else {
					w.writePolicy(t, "auto-repay.yaml", withDryRun(t, "auto-repay.yaml", "repay"))
				}
				k := w.open(t, "")
				w.advance(t, 15*time.Second)
				for range 2 {
					if err := k.RunOnce(t.Context()); err != nil {
						t.Fatalf("RunOnce: %v", err)
					}
				}
				acts := k.actionsOf(t, "auto-repay")
				if len(acts) != 1 {
					t.Fatalf("%d actions journaled over two runs, want 1", len(acts))
				}
				a := acts[0]
				if a.State != journal.StateSkipped || a.Rule != "dry-run" || !a.DryRun || !strings.HasPrefix(a.ID, "dry-") || a.AttemptCount != 0 {
					t.Errorf("journaled %s %s rule %q dry %v attempts %d; want skipped dry-run under a dry- ID, no attempt",
						a.ID, a.State, a.Rule, a.DryRun, a.AttemptCount)
				}
				// The second run finds the same plan journaled and records nothing new.
				if got := testutil.ToFloat64(k.metrics.Actions.WithLabelValues("auto-repay", "repay", string(action.OutcomeDryRun))); got != 1 {
					t.Errorf("dry_run outcomes = %v, want 1", got)
				}
				if b, s := len(w.net.buildKeys()), w.net.count(simRPCHost, "simulateTransaction"); b != 0 || s != 0 {
					t.Errorf("%d builds and %d simulations in dry run, want none", b, s)
				}
				checkNothingSent(t, w)
				if h := loanHealth(t, w, "repay-me"); h >= 0.2 {
					t.Errorf("loan health %.3f: something repaid it", h)
				}
			})
		})
	}
}

// withDryRun returns an example policy file with dry_run set on its
// policy of the given kind.
func withDryRun(t *testing.T, file, kind string) string {
	t.Helper()
	data, err := os.ReadFile("../examples/policies/" + file)
	if err != nil {
		t.Fatal(err)
	}
	line := "    kind: " + kind + "\n"
	if !strings.Contains(string(data), line) {
		t.Fatalf("%s has no %q", file, line)
	}
	return strings.Replace(string(data), line, line+"    dry_run: true\n", 1)
}

// TestKillSwitchOnSim: while the kill switch file exists a run journals and
// sends nothing and /readyz says why; once it is gone the same run lands.
func TestKillSwitchOnSim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, "auto-repay.yaml")
		k := w.open(t, "")
		ops := opsHandler(k.registry, k.upkeep.readiness, k.status)
		w.advance(t, 15*time.Second)
		if err := os.WriteFile(w.cfg.KillSwitch, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatalf("RunOnce while paused: %v", err)
		}
		if acts := k.actionsOf(t, "auto-repay"); len(acts) != 0 {
			t.Errorf("journaled %d actions while paused", len(acts))
		}
		if n := len(w.net.buildKeys()); n != 0 {
			t.Errorf("%d builds while paused", n)
		}
		checkNothingSent(t, w)
		code, body := get(t, ops, "/readyz")
		if want := "paused: kill switch " + w.cfg.KillSwitch + " exists"; code != http.StatusServiceUnavailable || !strings.Contains(body, want) {
			t.Errorf("/readyz while paused = %d %q, want 503 saying %q", code, body, want)
		}
		if strings.Contains(body, "journal:") || strings.Contains(body, "rpc:") {
			t.Errorf("/readyz blames more than the kill switch: %q", body)
		}
		if got := testutil.ToFloat64(k.metrics.Paused); got != 1 {
			t.Errorf("keeper_paused = %v, want 1", got)
		}
		if err := os.Remove(w.cfg.KillSwitch); err != nil {
			t.Fatal(err)
		}
		if code, body := get(t, ops, "/readyz"); code != http.StatusOK || body != "ready\n" {
			t.Errorf("/readyz after the switch is gone = %d %q", code, body)
		}
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatalf("RunOnce after the switch is gone: %v", err)
		}
		if acts := k.actionsOf(t, "auto-repay"); len(acts) != 1 || acts[0].State != journal.StateLanded {
			t.Errorf("after the switch is gone: %+v, want one landed repay", acts)
		}
	})
}
