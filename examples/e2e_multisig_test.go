package examples_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keeper-project/keeper/internal/failpoint"
	"github.com/keeper-project/keeper/keeper/sim"
)

// multisigScenario makes strategy alpha's authority vault 0 of "treasury", a 2-of-3 Squads multisig
// of alice, bob and carol in which keeper's wallet may propose and execute, not vote.
const multisigScenario = "testdata/e2e/vault-multisig.scenario.yaml"

// The SOL 7d APYs of the multisig scenario's strategy alpha: its own, and the best other quote (9 %
// from 5 s) plus the policy's 0.25 % offset.
const (
	msAlpha7d   = 120_000
	msUpdated7d = 92_500
)

// multisigPolicy is track-best-quote of vault-upkeep.yaml in proposal mode for multisig.
func multisigPolicy(multisig string) string {
	return `policies:
  - name: track-best-quote
    kind: strategy-update
    schedule: "@every 5s"
    authority: {squads: {multisig: ` + multisig + `, vault_index: 0}}
    params:
      min_change_bps: 50
      rules:
        - collaterals: ["*"]
          durations: ["7 days"]
          follow_best_quote: { offset_bps: 25, min_apy: 0.05, max_apy: 0.2 }
    limits: { cooldown: 10m }
`
}

// multisigWorld is `keeper sim` on the multisig scenario after beta's quote fell, and a workspace
// whose only policy proposes alpha's update to the treasury.
type multisigWorld struct {
	*workspace
	cfg string
}

func newMultisigWorld(t *testing.T) *multisigWorld {
	t.Helper()
	scenario, err := filepath.Abs(multisigScenario) // keeper sim runs in a folder of its own
	if err != nil {
		t.Fatal(err)
	}
	s := startSimWith(t, "--manual-clock", "--scenario", scenario)
	w := newWorkspace(t, s)
	s.until(t, 5)
	policy := filepath.Join(t.TempDir(), "vault-multisig.yaml")
	if err := os.WriteFile(policy, []byte(multisigPolicy(s.address(t, "multisig", "treasury"))), 0o644); err != nil {
		t.Fatal(err)
	}
	return &multisigWorld{workspace: w, cfg: w.config(t, "multisig", []string{policy})}
}

// treasury reads the treasury multisig from the simulator.
func (m *multisigWorld) treasury(t *testing.T) sim.MultisigState {
	t.Helper()
	var st sim.SquadsState
	if err := m.sim.call(t.Context(), http.MethodGet, "squads", nil, &st); err != nil {
		t.Fatalf("sim squads: %v", err)
	}
	return st.Multisigs["treasury"]
}

// vote lands each member's vote on proposal index.
func (m *multisigWorld) vote(t *testing.T, index uint64, vote string, members ...string) {
	t.Helper()
	for _, member := range members {
		body, _ := json.Marshal(sim.SquadsVote{Multisig: "treasury", Member: member, Index: index, Vote: vote})
		var st sim.ProposalState
		if err := m.sim.call(t.Context(), http.MethodPost, "squads/vote", body, &st); err != nil {
			t.Fatalf("%s %s #%d: %v", member, vote, index, err)
		}
	}
}

// pass runs `keeper run --once`, armed at failpoint point when not empty: armed, it must die there.
// Unarmed, it may exit 0 or 1 (an action left unsettled for the next pass).
func (m *multisigWorld) pass(t *testing.T, bin, point string) {
	t.Helper()
	args := []string{"run", "--once", "--config", m.cfg, "--log-format", "json"}
	if point == "" {
		if r := m.sim.runActing(t, m.dir, args...); r.code != 0 && r.code != 1 {
			t.Fatalf("keeper run --once exited %d; stderr:\n%s", r.code, r.stderr)
		}
		return
	}
	r := m.sim.runActingWith(t, procOptions{bin: bin, env: []string{failpoint.Env + "=" + point}}, m.dir, args...)
	if r.code != -1 {
		t.Fatalf("armed at %s, keeper exited %d instead of dying there; stderr:\n%s", point, r.code, r.stderr)
	}
}

// passUntil runs unarmed passes until done holds of the treasury, at most three.
func (m *multisigWorld) passUntil(t *testing.T, what string, done func(sim.MultisigState) bool) {
	t.Helper()
	for range 3 {
		if done(m.treasury(t)) {
			return
		}
		m.pass(t, "", "")
	}
	if st := m.treasury(t); !done(st) {
		t.Fatalf("after three passes, %s has not happened: %+v", what, st)
	}
}

// proposed reports whether the treasury holds proposal #1, still active.
func proposed(st sim.MultisigState) bool {
	return len(st.Proposals) > 0 && st.Proposals[0].Status == "active"
}

// executed reports whether the treasury's proposal #1 was executed.
func executed(st sim.MultisigState) bool {
	return len(st.Proposals) > 0 && st.Proposals[0].Status == "executed"
}

// journaledProposal is one proposal line of `keeper history --json`.
type journaledProposal struct {
	Proposal   uint64 `json:"proposal"`
	ActionID   string `json:"action_id"`
	State      string `json:"state"`
	Approvers  string `json:"approvers"`
	ExecuteSig string `json:"execute_signature"`
}

// proposals runs `keeper history --json` and returns the journaled proposals.
func (m *multisigWorld) proposals(t *testing.T) []journaledProposal {
	t.Helper()
	r := runKeeper(t, m.dir, "history", "--json", "--limit", "0", "--config", m.cfg).wantExit(t, 0)
	var out []journaledProposal
	for line := range strings.Lines(r.stdout) {
		if !strings.Contains(line, `"proposal":`) {
			continue
		}
		var p journaledProposal
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("history line %q: %v", line, err)
		}
		out = append(out, p)
	}
	return out
}

// alpha7d is strategy alpha's SOL 7-day APY on chain.
func (m *multisigWorld) alpha7d(t *testing.T) int64 {
	t.Helper()
	return m.sim.state(t).Strategies["alpha"].Terms["SOL"]["7 days"]
}

// executedOnce checks the end of an approved proposal: the treasury holds one vault transaction,
// created by keeper and executed; alpha shows the update; keeper's wallet signed exactly two
// transactions that landed (the proposal and its execution), neither failing (a second proposal at
// the index or a second execution would be a failed one); the journal holds one proposal, executed,
// and one action, settled by its execution.
func (m *multisigWorld) executedOnce(t *testing.T) {
	t.Helper()
	st := m.treasury(t)
	if st.TransactionIndex != 1 || len(st.Proposals) != 1 || st.Proposals[0].Status != "executed" || st.Proposals[0].Creator != m.sim.wallet {
		t.Fatalf("treasury %+v, want one vault transaction of keeper's, executed", st)
	}
	if got := m.alpha7d(t); got != msUpdated7d {
		t.Errorf("alpha SOL 7d APY %d, want %d", got, msUpdated7d)
	}
	signed := m.sim.state(t).Signed
	for _, tx := range signed {
		if tx.Err != "" {
			t.Errorf("keeper's transaction %s failed: %s", tx.Signature, tx.Err)
		}
	}
	if len(signed) != 2 {
		t.Errorf("keeper's wallet signed %d landed transactions, want 2 (the proposal and its execution): %+v", len(signed), signed)
	}
	ps := m.proposals(t)
	if len(ps) != 1 || ps[0].State != "executed" || ps[0].ExecuteSig == "" {
		t.Errorf("journaled proposals %+v, want #1 executed by keeper", ps)
	}
	acts := m.history(t, m.cfg)
	if len(acts) != 1 || acts[0].State != "landed" || acts[0].Rule != "proposal-executed" {
		t.Errorf("actions %+v, want one landed, settled by its proposal's execution", acts)
	}
}

// TestE2EVaultMultisig runs vault upkeep through a Squads multisig against `keeper sim`: keeper
// proposes alpha's update once, two members approve it through the simulator's control route, and
// keeper executes it once; or they reject it, and nothing is executed.
func TestE2EVaultMultisig(t *testing.T) {
	needBinary(t)
	t.Parallel()
	t.Run("approved", func(t *testing.T) {
		t.Parallel()
		m := newMultisigWorld(t)
		m.pass(t, "", "")
		if st := m.treasury(t); st.TransactionIndex != 1 || !proposed(st) || st.Proposals[0].Creator != m.sim.wallet {
			t.Fatalf("treasury after the first pass %+v, want keeper's proposal #1, active", st)
		}
		if got := m.alpha7d(t); got != msAlpha7d {
			t.Fatalf("alpha's APY changed to %d before any approval", got)
		}
		m.pass(t, "", "")
		if st := m.treasury(t); st.TransactionIndex != 1 {
			t.Fatalf("a second pass proposed again: transaction index %d", st.TransactionIndex)
		}
		m.vote(t, 1, "approve", "alice", "bob")
		m.pass(t, "", "")
		m.executedOnce(t)
		m.pass(t, "", "")
		m.executedOnce(t)
	})
	t.Run("rejected", func(t *testing.T) {
		t.Parallel()
		m := newMultisigWorld(t)
		m.pass(t, "", "")
		m.vote(t, 1, "reject", "alice", "bob")
		m.pass(t, "", "")
		m.pass(t, "", "")
		st := m.treasury(t)
		if st.TransactionIndex != 1 || len(st.Proposals) != 1 || st.Proposals[0].Status != "rejected" {
			t.Fatalf("treasury %+v, want proposal #1 rejected and nothing proposed after it", st)
		}
		if got := m.alpha7d(t); got != msAlpha7d {
			t.Errorf("alpha's APY changed to %d though the proposal was rejected", got)
		}
		if signed := m.sim.state(t).Signed; len(signed) != 1 {
			t.Errorf("keeper's wallet signed %d landed transactions, want the proposal alone: %+v", len(signed), signed)
		}
		if ps := m.proposals(t); len(ps) != 1 || ps[0].State != "rejected" || ps[0].ExecuteSig != "" {
			t.Errorf("journaled proposals %+v, want #1 rejected, never executed", ps)
		}
		acts := m.history(t, m.cfg)
		if len(acts) != 1 || acts[0].State != "failed" || acts[0].Rule != "proposal-rejected" {
			t.Errorf("actions %+v, want one failed as rejected", acts)
		}
	})
}

// multisigKillPoints are the failpoints around keeper's proposal transaction and its execution:
// signed and not journaled, journaled and not sent, sent and not confirmed, confirmed and not
// journaled. The proposal is made in one process and executed in a later one (after the votes), so
// each point's first hit in the armed process is the one of the phase under test.
var multisigKillPoints = []string{failpoint.AfterSign, failpoint.AfterSignatures, failpoint.AfterSend, failpoint.AfterConfirm}

// TestE2EVaultMultisigKill kills keeper (SIGKILL at a failpoint of the real binary) around the
// creation of its proposal and around its execution, then restarts it: the treasury holds one
// vault transaction, executed once, and keeper signed no second proposal or execution.
func TestE2EVaultMultisigKill(t *testing.T) {
	bin := needFailpointBinary(t)
	t.Parallel()
	for _, phase := range []string{"create", "execute"} {
		for _, point := range multisigKillPoints {
			t.Run(phase+"/"+point, func(t *testing.T) {
				t.Parallel()
				m := newMultisigWorld(t)
				if phase == "create" {
					m.pass(t, bin, point)
				}
				m.passUntil(t, "the proposal", proposed)
				m.vote(t, 1, "approve", "alice", "bob")
				if phase == "execute" {
					m.pass(t, bin, point)
				}
				m.passUntil(t, "the execution", executed)
				m.pass(t, "", "")
				m.executedOnce(t)
			})
		}
	}
}
