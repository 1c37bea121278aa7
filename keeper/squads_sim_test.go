package keeper

import (
	"crypto/ed25519"
	"crypto/sha256"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/notify"
	"github.com/keeper-project/keeper/keeper/sim"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/squadsim"
	"github.com/keeper-project/keeper/keeper/squads"
	"github.com/keeper-project/keeper/signer"
)

// squadsWorld is a simulator whose strategy alpha's authority is the vault
// of a 2-of-3 Squads multisig in which keeper's key may propose and
// execute, and three test members vote.
type squadsWorld struct {
	*simWorld
	multisig, vault solana.PublicKey
	voters          []solana.PrivateKey
}

func testKey(name string) solana.PrivateKey {
	seed := sha256.Sum256([]byte(name))
	return solana.PrivateKey(ed25519.NewKeyFromSeed(seed[:]))
}

func newSquadsWorld(t *testing.T, f faults.Faults) *squadsWorld {
	t.Helper()
	return newSquadsWorldWith(t, f, "", "")
}

// newSquadsWorldWith is newSquadsWorld with events appended to the
// default scenario's and submit the vault policy's submit block (empty:
// none). "$multisig" in events stands for the multisig's address.
func newSquadsWorldWith(t *testing.T, f faults.Faults, events, submit string) *squadsWorld {
	t.Helper()
	ms, _ := squads.MultisigPDA(testKey("multisig-create").PublicKey())
	vault, _ := squads.VaultPDA(ms, 0)
	yaml := string(sim.DefaultScenarioYAML()) + strings.ReplaceAll(events, "$multisig", ms.String())
	alpha := "  - name: alpha\n    authority: $wallet\n"
	if !strings.Contains(yaml, alpha) {
		t.Fatal("the default scenario's strategy alpha changed")
	}
	sc, err := sim.ParseScenario("squads.yaml", []byte(strings.Replace(yaml, alpha, "  - name: alpha\n    authority: "+vault.String()+"\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	w := &squadsWorld{simWorld: newSimWorld(t, simOptions{scenario: sc, faults: f}), vault: vault,
		voters: []solana.PrivateKey{testKey("alice"), testKey("bob"), testKey("carol")}}
	members := []squads.Member{{Key: w.wallet(), Permissions: squads.Initiate | squads.Execute}}
	for _, v := range w.voters {
		members = append(members, squads.Member{Key: v.PublicKey(), Permissions: squads.Vote})
		if err := w.sim.Chain().Setup.Fund(v.PublicKey(), 1_000_000_000); err != nil {
			t.Fatal(err)
		}
	}
	w.multisig, err = squadsim.Create(w.sim.Chain(), squadsim.Config{CreateKey: testKey("multisig-create").PublicKey(), Members: members, Threshold: 2})
	if err != nil || w.multisig != ms {
		t.Fatalf("multisig %s (want %s): %v", w.multisig, ms, err)
	}
	w.writePolicy(t, "vault.yaml", `policies:
  - name: track-best-quote
    kind: strategy-update
    schedule: "@every 5s"
    authority: {squads: {multisig: `+ms.String()+`, vault_index: 0}}
    params:
      min_change_bps: 50
      rules:
        - collaterals: ["*"]
          durations: ["7 days", "30 days"]
          follow_best_quote: { offset_bps: 25, min_apy: 0.05, max_apy: 0.2 }
    limits: { cooldown: 10m }
`+submit)
	return w
}

// proposal reads the proposal at index from the simulated chain.
func (w *squadsWorld) proposal(t *testing.T, index uint64) *squads.Proposal {
	t.Helper()
	k, _ := squads.ProposalPDA(w.multisig, index)
	a, ok := w.sim.Chain().State.Account(k)
	if !ok {
		t.Fatalf("no proposal %d on chain", index)
	}
	p, err := squads.DecodeProposal(a.Data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// transactionIndex is the multisig's transaction_index on chain.
func (w *squadsWorld) transactionIndex(t *testing.T) uint64 {
	t.Helper()
	a, _ := w.sim.Chain().State.Account(w.multisig)
	ms, err := squads.DecodeMultisig(a.Data)
	if err != nil {
		t.Fatal(err)
	}
	return ms.TransactionIndex
}

// proposals lists keeper's journaled proposals.
func proposalsOf(t *testing.T, k *simKeeper) []journal.Proposal {
	t.Helper()
	ps, err := k.journal.Proposals(t.Context(), journal.ProposalFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// TestSquadsProposeApproveExecute: keeper proposes the strategy update once
// (a second run proposes nothing more), two members approve, and keeper
// executes it once: the market shows the new APY.
func TestSquadsProposeApproveExecute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSquadsWorld(t, faults.Faults{})
		k := w.open(t, "")
		w.advance(t, 10*time.Second)
		run := func() {
			if err := k.RunOnce(t.Context()); err != nil {
				t.Fatalf("RunOnce: %v", err)
			}
		}
		alpha := w.address(t, ids.KindStrategy, "alpha")
		run()
		if got := solAPY(t, w.simWorld, alpha, 7); got != 120_000 {
			t.Fatalf("the APY changed to %d before any approval", got)
		}
		ps := proposalsOf(t, k)
		if len(ps) != 1 || ps[0].Index != 1 || ps[0].State != journal.ProposalProposed {
			t.Fatalf("journaled proposals %+v, want #1 proposed", ps)
		}
		if p := w.proposal(t, 1); p.Status != squads.StatusActive {
			t.Fatalf("proposal on chain is %s, want active", p.Status)
		}
		link := squads.AppLink("https://app.squads.so", w.multisig, 1)
		if st := k.openProposals(""); len(st) != 1 || st[0].State != "proposed" || st[0].Link != link {
			t.Fatalf("/status proposals %+v, want #1 proposed linking %s", st, link)
		}
		if plans, err := k.Plan(t.Context()); err != nil || len(plans) != 1 || len(plans[0].Proposals) != 1 || len(plans[0].Actions) != 0 {
			t.Fatalf("plan %+v (%v), want the open proposal and no new action", plans, err)
		}
		if !notified(w.hook.messages(), "proposal-proposed", link) {
			t.Errorf("no notification of the proposal with its link; got %+v", w.hook.messages())
		}
		w.advance(t, 5*time.Second)
		run()
		if n := w.transactionIndex(t); n != 1 || len(proposalsOf(t, k)) != 1 {
			t.Fatalf("a second run proposed again: transaction index %d, %d proposals journaled", n, len(proposalsOf(t, k)))
		}
		for _, v := range w.voters[:2] {
			if err := squadsim.Approve(w.sim.Chain(), w.multisig, 1, v); err != nil {
				t.Fatal(err)
			}
		}
		w.advance(t, 5*time.Second)
		run()
		if p := w.proposal(t, 1); p.Status != squads.StatusExecuted {
			t.Fatalf("proposal on chain is %s after approval, want executed", p.Status)
		}
		if got := solAPY(t, w.simWorld, alpha, 7); got != 92_500 {
			t.Errorf("alpha SOL 7d APY after execution %d cBPS, want 92500", got)
		}
		ps = proposalsOf(t, k)
		if len(ps) != 1 || ps[0].State != journal.ProposalExecuted || ps[0].ExecuteSig == "" || ps[0].Approvers == "" {
			t.Fatalf("journaled proposal %+v, want executed by keeper with its approvers", ps)
		}
		if acts := k.actionsOf(t, "track-best-quote"); len(acts) != 1 || acts[0].State != journal.StateLanded ||
			acts[0].Rule != journal.ProposalRule(journal.ProposalExecuted) {
			t.Fatalf("actions %+v, want one landed with rule proposal-executed", acts)
		}
		wantActionCounts(t, k, map[action.Outcome]float64{action.OutcomeProposed: 1, action.OutcomeLanded: 1})
		if !notified(w.hook.messages(), "proposal-approved", link) || !notified(w.hook.messages(), "proposal-executed", link) {
			t.Errorf("no notification of the approval and the execution; got %+v", w.hook.messages())
		}
		if st := k.openProposals(""); len(st) != 0 {
			t.Errorf("/status still shows %+v", st)
		}
		paid := len(w.landed.paidBy(w.wallet()))
		w.advance(t, 5*time.Second)
		run()
		if got := len(w.landed.paidBy(w.wallet())); got != paid || w.transactionIndex(t) != 1 {
			t.Errorf("after execution a run sent %d more transactions (transaction index %d), want none", got-paid, w.transactionIndex(t))
		}
	})
}

// TestSquadsRejected: the members reject the proposal; nothing executes and
// the proposal settles as rejected.
func TestSquadsRejected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSquadsWorld(t, faults.Faults{})
		k := w.open(t, "")
		w.advance(t, 10*time.Second)
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		for _, v := range w.voters[:2] {
			if err := squadsim.Reject(w.sim.Chain(), w.multisig, 1, v); err != nil {
				t.Fatal(err)
			}
		}
		w.advance(t, 5*time.Second)
		if err := k.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		ps := proposalsOf(t, k)
		if len(ps) < 1 || ps[0].State != journal.ProposalRejected || ps[0].ExecuteSig != "" {
			t.Fatalf("journaled proposals %+v, want #1 rejected and never executed", ps)
		}
		if got := solAPY(t, w.simWorld, w.address(t, ids.KindStrategy, "alpha"), 7); got != 120_000 {
			t.Errorf("alpha's APY changed to %d though the proposal was rejected", got)
		}
		if p := w.proposal(t, 1); p.Status != squads.StatusRejected {
			t.Fatalf("proposal on chain is %s", p.Status)
		}
		if acts := k.actionsOf(t, "track-best-quote"); len(acts) != 1 || acts[0].State != journal.StateFailed ||
			acts[0].Rule != journal.ProposalRule(journal.ProposalRejected) {
			t.Fatalf("actions %+v, want one failed with rule proposal-rejected", acts)
		}
		wantActionCounts(t, k, map[action.Outcome]float64{action.OutcomeProposed: 1, action.OutcomeRejected: 1, action.OutcomeLanded: 0})
	})
}

// wantActionCounts checks keeper_actions_total of track-best-quote by
// outcome.
func wantActionCounts(t *testing.T, k *simKeeper, want map[action.Outcome]float64) {
	t.Helper()
	for o, n := range want {
		if got := testutil.ToFloat64(k.metrics.Actions.WithLabelValues("track-best-quote", string(signer.KindStrategyUpdate), string(o))); got != n {
			t.Errorf("keeper_actions_total{outcome=%q} = %g, want %g", o, got, n)
		}
	}
}

// TestSquadsMemberCheck: check --online wants keeper's key to propose,
// warns without Execute, and warns loudly when it may vote.
func TestSquadsMemberCheck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSquadsWorld(t, faults.Faults{})
		co := chainOptions(w.cfg, NewMetrics(nil), slog.New(slog.DiscardHandler))
		co.HTTPClient = w.net.client()
		c, err := chain.New(co)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ps, err := LoadPolicies(w.cfg.Dir, w.cfg.Policies, nil)
		if err != nil || len(ps) != 1 {
			t.Fatalf("policies %d: %v", len(ps), err)
		}
		voter := squads.Member{Key: w.voters[0].PublicKey(), Permissions: squads.Vote}
		for _, c2 := range []struct {
			name    string
			perm    squads.Permission
			warn    string
			problem string
		}{
			{"proposer and executor", squads.Initiate | squads.Execute, "", ""},
			{"no execute", squads.Initiate, "holds no Execute", ""},
			{"voter too", squads.Initiate | squads.Execute | squads.Vote, "KEEPER'S KEY HOLDS VOTE", ""},
			{"no initiate", squads.Execute, "", "not Initiate"},
		} {
			members := []squads.Member{{Key: w.wallet(), Permissions: c2.perm}, voter,
				{Key: w.voters[1].PublicKey(), Permissions: squads.Vote | squads.Initiate | squads.Execute}}
			if err := squadsim.Configure(w.sim.Chain(), w.multisig, members, 1, 0); err != nil {
				t.Fatal(err)
			}
			warnings, problem := checkMember(t.Context(), c, w.wallet(), ps[0])
			if got := strings.Join(warnings, "\n"); c2.warn == "" && got != "" || !strings.Contains(got, c2.warn) {
				t.Errorf("%s: warnings %q, want one saying %q", c2.name, got, c2.warn)
			}
			if c2.problem == "" && problem != "" || !strings.Contains(problem, c2.problem) {
				t.Errorf("%s: problem %q, want one saying %q", c2.name, problem, c2.problem)
			}
		}
	})
}

// notified reports whether a message of event linking link was posted.
func notified(ms []notify.Message, event, link string) bool {
	for _, m := range ms {
		if string(m.Event) == event && slices.Contains(m.Links, link) {
			return true
		}
	}
	return false
}

// TestSquadsHostileAnswersAreNotProposed: an answer that would take the
// vault's funds or authority, need another signer, or come as several
// transactions is refused by the guard before anything is proposed.
func TestSquadsHostileAnswersAreNotProposed(t *testing.T) {
	for _, h := range faults.AllHostile() {
		t.Run(h.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newSquadsWorld(t, faults.Faults{Market: faults.Market{HostileAlways: h}})
				k := w.open(t, "")
				w.advance(t, 10*time.Second)
				_ = k.RunOnce(t.Context()) // the refusal fails the run
				if n := w.transactionIndex(t); n != 0 {
					t.Fatalf("a hostile answer was proposed (transaction index %d)", n)
				}
				acts := k.actionsOf(t, "track-best-quote")
				if len(acts) != 1 || acts[0].State != journal.StateRefused {
					t.Fatalf("actions %+v, want one refused", acts)
				}
				t.Logf("refused by %s: %s", acts[0].Rule, acts[0].Detail)
				if len(proposalsOf(t, k)) != 0 || len(w.landed.paidBy(w.wallet())) != 0 {
					t.Fatalf("something was journaled or sent for a refused answer")
				}
			})
		})
	}
}
