package keeper

import (
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/policies"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/keeper/notify"
	"github.com/keeper-project/keeper/signer"
)

func apiError(status int) *api.APIError {
	return &api.APIError{Endpoint: "build_loan", Status: status, Message: http.StatusText(status)}
}

// pathCase is one scripted run of the action path and what it must leave.
type pathCase struct {
	name   string
	market []marketReply
	simRes []simReply
	sends  []sendReply

	want   action.Outcome
	state  journal.State
	rule   journal.Rule
	builds int // builds, with keys <id>-1 … <id>-n
	sims   int
	signed []int // attempts with journaled signatures
	sent   int   // submissions
	// outcomes are the attempts' outcomes, oldest first.
	outcomes []journal.State
	fee      uint64 // fee recorded on the last attempt
	// seq: an RPC sequence, each submission one transaction of the
	// attempt, in order.
	seq bool
}

func TestExecutePath(t *testing.T) {
	expired := sendReply{outcome: chain.OutcomeExpired}
	cases := []pathCase{
		{name: "lands on the first attempt",
			want: action.OutcomeLanded, state: journal.StateLanded, builds: 1, sims: 1, signed: []int{1}, sent: 1,
			outcomes: []journal.State{journal.StateLanded}, fee: simFee},
		{name: "expired attempt is rebuilt with a new key and lands",
			sends: []sendReply{expired},
			want:  action.OutcomeLanded, state: journal.StateLanded, builds: 2, sims: 2, signed: []int{1, 2}, sent: 2,
			outcomes: []journal.State{journal.StateExpired, journal.StateLanded}, fee: simFee},
		{name: "five expiries fail the action",
			sends: []sendReply{expired, expired, expired, expired, expired},
			want:  action.OutcomeFailed, state: journal.StateFailed, rule: "max-attempts", builds: 5, sims: 5, signed: []int{1, 2, 3, 4, 5}, sent: 5,
			outcomes: slices.Repeat([]journal.State{journal.StateExpired}, 5)},
		{name: "retryable build error expires the attempt unsigned",
			market: []marketReply{{err: apiError(http.StatusServiceUnavailable)}},
			want:   action.OutcomeRetry, state: journal.StateExpired, rule: "build-retryable", builds: 1,
			outcomes: []journal.State{journal.StateExpired}},
		{name: "409 expires the attempt unsigned, for a new one under a new key",
			market: []marketReply{{err: apiError(http.StatusConflict)}},
			want:   action.OutcomeRetry, state: journal.StateExpired, rule: "idempotency-conflict", builds: 1,
			outcomes: []journal.State{journal.StateExpired}},
		{name: "400 fails as refused by the market",
			market: []marketReply{{err: apiError(http.StatusBadRequest)}},
			want:   action.OutcomeFailed, state: journal.StateFailed, rule: "build-refused", builds: 1,
			outcomes: []journal.State{journal.StateFailed}},
		{name: "garbled 200 answer expires the attempt unsigned, for a new one",
			market: []marketReply{{err: &api.APIError{Endpoint: "build_loan", Status: http.StatusOK, Malformed: true, Message: "cannot decode response"}}},
			want:   action.OutcomeRetry, state: journal.StateExpired, rule: "build-retryable", builds: 1,
			outcomes: []journal.State{journal.StateExpired}},
		{name: "failing simulation sends nothing",
			simRes: []simReply{{err: &chain.SimError{Err: map[string]any{"InstructionError": []any{0, "Custom"}}, Logs: []string{"Program failed"}}}},
			want:   action.OutcomeRetry, state: journal.StateExpired, rule: "simulation-failed", builds: 1, sims: 1,
			outcomes: []journal.State{journal.StateExpired}},
		{name: "simulation unavailable sends nothing",
			simRes: []simReply{{err: &chain.TransportError{Method: "simulateTransaction", Endpoint: "rpc", Err: errors.New("connection refused")}}},
			want:   action.OutcomeRetry, state: journal.StateExpired, rule: "simulation-unavailable", builds: 1, sims: 1,
			outcomes: []journal.State{journal.StateExpired}},
		{name: "transaction failing on chain fails the action",
			sends: []sendReply{{outcome: chain.OutcomeFailed}},
			want:  action.OutcomeFailed, state: journal.StateFailed, rule: "chain-failed", builds: 1, sims: 1, signed: []int{1}, sent: 1,
			outcomes: []journal.State{journal.StateFailed}, fee: simFee},
		{name: "a sequence stopped midway expires saying what landed",
			market: []marketReply{{txs: 2}},
			sends:  []sendReply{{outcome: chain.OutcomeLanded}, {outcome: chain.OutcomeFailed}},
			want:   action.OutcomeRetry, state: journal.StateExpired, rule: "sequence-partial", builds: 1, sims: 2, signed: []int{1}, sent: 2, seq: true,
			outcomes: []journal.State{journal.StateExpired}, fee: 2 * simFee},
		{name: "a sequence lands one transaction at a time",
			market: []marketReply{{txs: 3}},
			want:   action.OutcomeLanded, state: journal.StateLanded, builds: 1, sims: 3, signed: []int{1}, sent: 3, seq: true,
			outcomes: []journal.State{journal.StateLanded}, fee: 3 * simFee},
		{name: "a sequence whose first transaction fails on chain fails",
			market: []marketReply{{txs: 2}},
			sends:  []sendReply{{outcome: chain.OutcomeFailed}},
			want:   action.OutcomeFailed, state: journal.StateFailed, rule: "chain-failed", builds: 1, sims: 1, signed: []int{1}, sent: 1, seq: true,
			outcomes: []journal.State{journal.StateFailed}, fee: simFee},
		{name: "unknown outcome stays submitted",
			sends: []sendReply{{outcome: chain.OutcomeUnknown, err: fmt.Errorf("confirm: %w", errors.New("context deadline exceeded"))}},
			want:  action.OutcomePending, state: journal.StateSubmitted, builds: 1, sims: 1, signed: []int{1}, sent: 1,
			outcomes: []journal.State{""}},
		{name: "legacy messages land too",
			market: []marketReply{{legacy: true}},
			want:   action.OutcomeLanded, state: journal.StateLanded, builds: 1, sims: 1, signed: []int{1}, sent: 1,
			outcomes: []journal.State{journal.StateLanded}, fee: simFee},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, k := newKeeper(t)
			w.market.script(tc.market...)
			w.sub.scriptSims(tc.simRes...)
			w.sub.scriptSends(tc.sends...)
			p := repayPlan("act")
			if got := k.run(p); got != tc.want {
				t.Errorf("outcome = %s, want %s", got, tc.want)
			}
			checkPath(t, w, k, p, tc)
		})
	}
}

// checkPath asserts what one scripted run left in the journal, the market
// and the chain.
func checkPath(t *testing.T, w *world, k *testKeeper, p action.Plan, tc pathCase) {
	t.Helper()
	act := k.action(t, p.ID)
	if act.State != tc.state || act.Rule != tc.rule {
		t.Errorf("journal state %s rule %q, want %s %q (detail %q)", act.State, act.Rule, tc.state, tc.rule, act.Detail)
	}
	if got, want := w.market.keys(), keysOf(p.ID, tc.builds); !slices.Equal(got, want) {
		t.Errorf("build keys = %v, want %v", got, want)
	}
	var outcomes []journal.State
	var signed []int
	for _, a := range act.Attempts {
		outcomes = append(outcomes, a.Outcome)
		if len(a.Signatures) > 0 {
			signed = append(signed, a.Number)
		}
		if a.IdempotencyKey != fmt.Sprintf("%s-%d", p.ID, a.Number) {
			t.Errorf("attempt %d key = %q", a.Number, a.IdempotencyKey)
		}
	}
	if !slices.Equal(outcomes, tc.outcomes) || act.AttemptCount != len(tc.outcomes) {
		t.Errorf("attempt outcomes = %v (count %d), want %v", outcomes, act.AttemptCount, tc.outcomes)
	}
	if !slices.Equal(signed, tc.signed) {
		t.Errorf("attempts with journaled signatures = %v, want %v", signed, tc.signed)
	}
	sims, sent, _, _ := w.sub.snapshot()
	if sims != tc.sims || len(sent) != tc.sent {
		t.Errorf("simulated %d, sent %d; want %d, %d", sims, len(sent), tc.sims, tc.sent)
	}
	for i, s := range sent {
		if tc.seq {
			journaled := act.Attempts[tc.signed[0]-1].Signatures
			if len(s.txs) != 1 || journaled[i].Signature != s.txs[0].Signature.String() {
				t.Errorf("submission %d is not transaction %d of the journaled sequence", i, i)
			}
			continue
		}
		journaled := act.Attempts[tc.signed[i]-1].Signatures
		if len(journaled) != len(s.txs) {
			t.Fatalf("submission %d sent %d transactions, attempt journaled %d", i, len(s.txs), len(journaled))
		}
		for j, tx := range s.txs {
			if journaled[j].Signature != tx.Signature.String() || journaled[j].Transaction != base64.StdEncoding.EncodeToString(tx.Raw) {
				t.Errorf("submission %d tx %d is not what the journal holds", i, j)
			}
		}
	}
	if n := len(act.Attempts); n > 0 && act.Attempts[n-1].FeeLamports != tc.fee {
		t.Errorf("fee = %d, want %d", act.Attempts[n-1].FeeLamports, tc.fee)
	}
	wantCount := 1.0 // pending counts too: the metric says where each action's path ended this time
	if got := k.actions(tc.want); got != wantCount {
		t.Errorf("actions_total{outcome=%s} = %v, want %v", tc.want, got, wantCount)
	}
	wantConflicts := 0.0
	if tc.rule == "idempotency-conflict" {
		wantConflicts = 1
	}
	if got := testutil.ToFloat64(k.metrics.IdempotencyConflicts); got != wantConflicts {
		t.Errorf("idempotency_conflicts_total = %v, want %v", got, wantConflicts)
	}
}

// TestStepOrder checks that nothing leaves the process before the intent
// is journaled, that the answer is simulated before it is signed (the
// fake submitter checks that what it simulates carries no signature of the
// wallet's), that nothing signed leaves before the signatures are
// journaled, and that a bundle's tip is journaled before it is handed to
// the chain.
func TestStepOrder(t *testing.T) {
	// Every case's steps happen once each, in an order that keeps each pair of order: the build's
	// and the submission's records are written beside the simulation and the send, so only the
	// orders the journal and the guard need are fixed.
	order := [][2]string{{"journal.Start", "build order-1"}, {"build order-1", "journal.RecordBuilt"},
		{"build order-1", "simulate"}, {"simulate", "signer.SignSequence"}, {"signer.SignSequence", "journal.RecordSigned"},
		{"journal.RecordBuilt", "journal.RecordSigned"}, {"journal.RecordSigned", "journal.RecordSubmitted"},
		{"journal.RecordSubmitted", "journal.Settle"}}
	cases := []struct {
		name  string
		plan  action.Plan
		want  []string
		order [][2]string
	}{
		{"rpc", repayPlan("order"), []string{"journal.Start", "build order-1", "journal.RecordBuilt",
			"simulate", "signer.SignSequence", "journal.RecordSigned", "journal.RecordSubmitted", "send rpc 1", "journal.Settle"},
			append(order, [2]string{"journal.RecordSigned", "send rpc 1"}, [2]string{"send rpc 1", "journal.Settle"})},
		{"bundle", bundlePlan("order", 0), []string{"journal.Start", "build order-1", "journal.RecordBuilt",
			"simulate", "signer.SignSequence", "journal.RecordSigned", "journal.RecordSubmitted", "journal.RecordTip", "tip 10000",
			"send bundle 1", "journal.Settle"},
			append(order, [2]string{"journal.RecordSigned", "journal.RecordTip"}, [2]string{"journal.RecordTip", "tip 10000"},
				[2]string{"tip 10000", "send bundle 1"}, [2]string{"send bundle 1", "journal.Settle"})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, k := newKeeper(t)
			if got := k.run(tc.plan); got != action.OutcomeLanded {
				t.Fatalf("outcome = %s, want landed", got)
			}
			got := w.log.list()
			if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(tc.want))) {
				t.Fatalf("steps = %v\nwant    %v in some order", got, tc.want)
			}
			for _, o := range tc.order {
				if slices.Index(got, o[0]) > slices.Index(got, o[1]) {
					t.Errorf("steps = %v: %s after %s", got, o[0], o[1])
				}
			}
			att := k.action(t, tc.plan.ID).Attempts[0]
			times := []time.Time{att.CreatedAt, att.BuiltAt, att.SignedAt, att.SubmittedAt, att.SettledAt}
			for i, ts := range times {
				if ts.IsZero() || i > 0 && ts.Before(times[i-1]) {
					t.Errorf("attempt step times %v are not all set and in order", times)
					break
				}
			}
		})
	}
}

// TestAFailedBuildRecordSendsNothing checks that an attempt whose build the journal could not
// record journals no signature and sends nothing: it expires, and
// the next run lands the action.
func TestAFailedBuildRecordSendsNothing(t *testing.T) {
	w, k := newKeeper(t)
	w.holdWrite = func(step string) error {
		if step == "journal.RecordBuilt" {
			return errJournalDown
		}
		return nil
	}
	p := repayPlan("unbuilt")
	if got := k.run(p); got != action.OutcomeRetry {
		t.Fatalf("outcome = %s, want retry", got)
	}
	act := k.action(t, p.ID)
	if len(act.Attempts) != 1 {
		t.Fatalf("attempts %+v, want one", act.Attempts)
	}
	if first := act.Attempts[0]; first.Outcome != journal.StateExpired || first.Rule != journal.RuleJournal || len(first.Signatures) != 0 {
		t.Errorf("attempt %+v, want expired for the journal without signatures", first)
	}
	if steps := w.log.list(); slices.ContainsFunc(steps, func(e string) bool { return strings.HasPrefix(e, "send ") }) {
		t.Errorf("steps %v: something was sent", steps)
	}
	w.holdWrite = nil
	if got := k.run(p); got != action.OutcomeLanded {
		t.Errorf("next run = %s, want landed", got)
	}
}

func TestRetryableBuildResumesWithNextAttempt(t *testing.T) {
	w, k := newKeeper(t)
	w.market.script(marketReply{err: apiError(http.StatusServiceUnavailable)})
	p := repayPlan("retry")
	if got := k.run(p); got != action.OutcomeRetry {
		t.Fatalf("first run = %s, want retry", got)
	}
	if got := k.run(p); got != action.OutcomeLanded {
		t.Fatalf("second run = %s, want landed", got)
	}
	act := k.action(t, p.ID)
	if act.State != journal.StateLanded || act.AttemptCount != 2 || act.Attempts[1].IdempotencyKey != "retry-2" {
		t.Errorf("journal: state %s, %d attempts, last key %q; want landed, 2, retry-2", act.State, act.AttemptCount, act.Attempts[act.AttemptCount-1].IdempotencyKey)
	}
	if len(act.Attempts[0].Signatures) != 0 {
		t.Errorf("attempt 1 journaled signatures: %v", act.Attempts[0].Signatures)
	}
	if got, want := w.market.keys(), []string{"retry-1", "retry-2"}; !slices.Equal(got, want) {
		t.Errorf("build keys = %v, want %v", got, want)
	}
	_, sent, settled, _ := w.sub.snapshot()
	if len(sent) != 1 || len(settled) != 0 {
		t.Errorf("sent %d, settled %d; want 1 send and no chain check (nothing was ever signed)", len(sent), len(settled))
	}
}

// A retryable build failure of a later attempt must expire that attempt too,
// so a later run can try again. The journal refuses expired → expired, so
// the attempt stays open and the action can never be taken again.
func TestRepeatedRetryableBuildKeepsRetrying(t *testing.T) {
	w, k := newKeeper(t)
	w.market.script(marketReply{err: apiError(http.StatusServiceUnavailable)}, marketReply{err: apiError(http.StatusBadGateway)})
	p := repayPlan("flaky")
	for i := range 2 {
		if got := k.run(p); got != action.OutcomeRetry {
			t.Fatalf("run %d = %s, want retry", i+1, got)
		}
	}
	act := k.action(t, p.ID)
	if _, open := act.OpenAttempt(); open || act.State != journal.StateExpired {
		t.Errorf("after two retryable build failures: state %s, attempt %d open %v; want expired with no open attempt",
			act.State, act.AttemptCount, open)
	}
	if got := k.run(p); got != action.OutcomeLanded {
		t.Errorf("third run = %s, want landed", got)
	}
	if got, want := w.market.keys(), keysOf(p.ID, 3); !slices.Equal(got, want) {
		t.Errorf("build keys = %v, want %v", got, want)
	}
}

func TestHostileTransactionIsRefused(t *testing.T) {
	cases := []struct {
		hostile string
		rule    signer.Rule
	}{
		{hostileTransfer, signer.RuleSOLTransfer},
		{hostileProgram, signer.RuleProgramNotAllowed},
		{hostileNotSigner, signer.RuleNotASigner},
		{hostileFeePayer, signer.RuleFeePayer},
	}
	for _, tc := range cases {
		t.Run(tc.hostile, func(t *testing.T) {
			w, k := newKeeper(t)
			w.market.script(marketReply{hostile: tc.hostile})
			p := repayPlan("hostile")
			if got := k.run(p); got != action.OutcomeRefused {
				t.Fatalf("outcome = %s, want refused", got)
			}
			checkPath(t, w, k, p, pathCase{want: action.OutcomeRefused, state: journal.StateRefused, rule: journal.Rule(tc.rule),
				builds: 1, outcomes: []journal.State{journal.StateRefused}})
			if got := k.refusals(string(tc.rule)); got != 1 {
				t.Errorf("guard_refusals_total{rule=%s} = %v, want 1", tc.rule, got)
			}
			if act := k.action(t, p.ID); !strings.Contains(act.Detail, "transaction 0") {
				t.Errorf("detail %q does not name the transaction", act.Detail)
			}
		})
	}
}

func TestSimulatedOutflowOverBoundsIsRefused(t *testing.T) {
	usdc := solana.MustPublicKeyFromBase58(usdcMint)
	other := keyOf("other mint")
	cases := []struct {
		name string
		out  chain.Outflows
		rule signer.Rule
	}{
		{"lamports over the bound", chain.Outflows{Lamports: 50_001}, signer.RuleSimulatedLamports},
		{"repay mint over its amount", chain.Outflows{Lamports: simFee, Tokens: map[solana.PublicKey]int64{usdc: 1_000_001}}, signer.RuleSimulatedTokens},
		{"mint without a bound", chain.Outflows{Lamports: simFee, Tokens: map[solana.PublicKey]int64{other: 1}}, signer.RuleSimulatedTokens},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, k := newKeeper(t)
			w.sub.scriptSims(simReply{outflows: tc.out})
			p := repayPlan("drain")
			if got := k.run(p); got != action.OutcomeRefused {
				t.Fatalf("outcome = %s, want refused", got)
			}
			checkPath(t, w, k, p, pathCase{want: action.OutcomeRefused, state: journal.StateRefused, rule: journal.Rule(tc.rule),
				builds: 1, sims: 1, outcomes: []journal.State{journal.StateRefused}})
			if got := k.refusals(string(tc.rule)); got != 1 {
				t.Errorf("guard_refusals_total{rule=%s} = %v, want 1", tc.rule, got)
			}
			// Refused on the simulation of the unsigned answer: the key
			// signed nothing, so nothing signed can have reached anyone.
			if steps := w.log.list(); slices.Contains(steps, "signer.SignSequence") {
				t.Errorf("steps %v: the answer was signed though its simulation was refused", steps)
			}
		})
	}
}

// TestHostileTransferStoppedAtSimulationIsRefused: a token transfer to a
// stranger within the static bounds that the chain stops in simulation is a
// guard refusal, final, counted and notified, not a retryable expiry. A
// failure at the market's own instruction stays retryable.
func TestHostileTransferStoppedAtSimulationIsRefused(t *testing.T) {
	failAt := func(ix int) simReply {
		return simReply{err: &chain.SimError{Err: map[string]any{"InstructionError": []any{float64(ix), map[string]any{"Custom": float64(1)}}}}}
	}
	t.Run("at the transfer", func(t *testing.T) {
		w, k := newKeeper(t)
		w.market.script(marketReply{hostile: hostileTokenTransfer})
		w.sub.scriptSims(failAt(1))
		p := repayPlan("stopped")
		if got := k.run(p); got != action.OutcomeRefused {
			t.Fatalf("outcome = %s, want refused", got)
		}
		rule := journal.Rule(signer.RuleSimulatedSpendFailed)
		checkPath(t, w, k, p, pathCase{want: action.OutcomeRefused, state: journal.StateRefused, rule: rule,
			builds: 1, sims: 1, outcomes: []journal.State{journal.StateRefused}})
		if got := k.refusals(string(rule)); got != 1 {
			t.Errorf("guard_refusals_total{rule=%s} = %v, want 1", rule, got)
		}
		if got := k.run(p); got != action.OutcomeSettled {
			t.Errorf("second run = %s, want settled: the refusal is final for these inputs", got)
		}
	})
	t.Run("at the market's instruction", func(t *testing.T) {
		w, k := newKeeper(t)
		w.market.script(marketReply{hostile: hostileTokenTransfer})
		w.sub.scriptSims(failAt(0))
		if got := k.run(repayPlan("honest-failure")); got != action.OutcomeRetry {
			t.Fatalf("outcome = %s, want retry", got)
		}
	})
}

func TestSimulatedOutflowWithinBoundsLands(t *testing.T) {
	w, k := newKeeper(t)
	usdc := solana.MustPublicKeyFromBase58(usdcMint)
	w.sub.scriptSims(simReply{outflows: chain.Outflows{Lamports: 50_000, Tokens: map[solana.PublicKey]int64{usdc: 1_000_000, keyOf("reward mint"): -5}}})
	if got := k.run(repayPlan("edge")); got != action.OutcomeLanded {
		t.Errorf("outcome = %s, want landed (outflows exactly at the bounds, inflows free)", got)
	}
}

func TestBundleTipSignedWithinPlanCap(t *testing.T) {
	cases := []struct {
		name    string
		tipCap  uint64
		wantCap uint64
	}{
		{"plan cap below the config's", 50_000, 50_000},
		{"no plan cap takes the config's", 0, 1_000_000},
		{"plan cap above the config's is ignored", 5_000_000, 1_000_000},
		{"plan cap below the floor is raised to it", 2_000, 10_000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, k := newKeeper(t)
			p := bundlePlan("bundle", tc.tipCap)
			if got := k.run(p); got != action.OutcomeLanded {
				t.Fatalf("outcome = %s, want landed", got)
			}
			_, sent, _, _ := w.sub.snapshot()
			if len(sent) != 1 || sent[0].route != chain.RouteBundle || sent[0].tip == nil {
				t.Fatalf("submissions = %+v, want one bundle with a tip", sent)
			}
			pol := sent[0].pol
			if pol.Cap != tc.wantCap || pol.Floor != 10_000 || pol.FallbackRPC {
				t.Errorf("tip policy = %+v, want cap %d, floor 10000, no rpc fallback", pol, tc.wantCap)
			}
			act := k.action(t, p.ID)
			if att := act.Attempts[0]; att.Mode != journal.ModeBundle || att.TipLamports != 10_000 || att.FeeLamports != simFee {
				t.Errorf("attempt: mode %s tip %d fee %d; want bundle, 10000, %d", att.Mode, att.TipLamports, att.FeeLamports, simFee)
			}
			for _, s := range act.Attempts[0].Signatures {
				if s.Signature == sent[0].tip.Signature.String() {
					t.Errorf("tip signature journaled among the market's transactions")
				}
			}
			tip := sent[0].tip
			want := []journal.Tip{{Signature: tip.Signature.String(), Blockhash: tip.Blockhash.String(),
				Account: w.sub.tipAccount.String(), Lamports: 10_000, Transaction: base64.StdEncoding.EncodeToString(tip.Raw)}}
			if got := withoutTimes(act.Attempts[0].Tips); !slices.Equal(got, want) {
				t.Errorf("journaled tips = %+v\nwant %+v", got, want)
			}
		})
	}
}

// A bundle the submitter refuses sent nothing; the journal must record the
// refusal as final, as the outcome says, not keep a phantom submission.
func TestBundleRefusedIsJournaledFinal(t *testing.T) {
	cases := []struct {
		name  string
		reply sendReply
	}{
		{"bundle full and fallback refused", sendReply{outcome: chain.OutcomeRefused, err: chain.ErrBundleFull, nothingSent: true}},
		{"tip above the plan cap", sendReply{outcome: chain.OutcomeRefused, tip: 50_001}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, k := newKeeper(t)
			w.sub.scriptSends(tc.reply)
			p := bundlePlan("full", 50_000)
			got := k.run(p)
			act := k.action(t, p.ID)
			if !act.State.Final() || !strings.HasPrefix(string(act.Rule), "bundle") {
				t.Errorf("journal state %s rule %q, want a final state with a bundle rule", act.State, act.Rule)
			}
			if string(got) != string(act.State) {
				t.Errorf("outcome %s but journal says %s", got, act.State)
			}
			_, sent, _, _ := w.sub.snapshot()
			if w.sub.landedCount(sigsOf(sent)) != 0 {
				t.Errorf("something reached the chain")
			}
		})
	}
}

func sigsOf(sent []sendRecord) []solana.Signature {
	var out []solana.Signature
	for _, s := range sent {
		for _, t := range s.txs {
			out = append(out, t.Signature)
		}
	}
	return out
}

func TestEarnClaimWireTransactionsLandAsOneBundle(t *testing.T) {
	w, k := newKeeper(t)
	w.market.script(marketReply{txs: 3})
	p := action.Plan{ID: "claim", Policy: "claims", Kind: signer.KindClaimWithdrawals, Target: "EarnPos",
		Request: policies.Request{WithdrawClaim: &market.WithdrawClaimRequest{Address: "EarnPos", Wallet: k.wallet.String(), RequestID: "7"}},
		Bounds:  signer.Bounds{MaxLamports: 100_000}, Reason: "3 withdrawals filled", Submit: action.Submit{Mode: journal.ModeBundle}}
	if got := k.run(p); got != action.OutcomeLanded {
		t.Fatalf("outcome = %s, want landed", got)
	}
	_, sent, _, _ := w.sub.snapshot()
	if len(sent) != 1 || len(sent[0].txs) != 3 {
		t.Fatalf("submissions = %d, want one bundle of 3", len(sent))
	}
	want, err := w.market.ClaimEarnWithdrawal(t.Context(), "claim-1", *p.Request.WithdrawClaim)
	if err != nil {
		t.Fatal(err)
	}
	for i, tx := range sent[0].txs {
		if wantBH := blockhashOf("claim-1", i); tx.Blockhash != wantBH {
			t.Errorf("bundle position %d holds blockhash %s, want the market's transaction %d", i, tx.Blockhash, i)
		}
	}
	act := k.action(t, p.ID)
	if !slices.Equal(act.Attempts[0].Transactions, want.TxBase64s) {
		t.Errorf("journal did not keep the market's wire transactions as built")
	}
}

func TestKillSwitchPausesBeforeJournal(t *testing.T) {
	w, k := newKeeper(t)
	if err := os.WriteFile(w.cfg.KillSwitch, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p := repayPlan("paused")
	if got := k.run(p); got != action.OutcomePaused {
		t.Fatalf("outcome = %s, want paused", got)
	}
	if _, err := k.journal.Get(t.Context(), p.ID); !isNotFound(err) {
		t.Errorf("journal get = %v, want not found", err)
	}
	if len(w.log.list()) != 0 {
		t.Errorf("dependencies called while paused: %v", w.log.list())
	}
	if got := testutil.ToFloat64(k.metrics.Paused); got != 1 {
		t.Errorf("paused gauge = %v, want 1", got)
	}
	if err := os.Remove(w.cfg.KillSwitch); err != nil {
		t.Fatal(err)
	}
	if got := k.run(p); got != action.OutcomeLanded {
		t.Errorf("after the kill switch is removed: %s, want landed", got)
	}
	if got := testutil.ToFloat64(k.metrics.Paused); got != 0 {
		t.Errorf("paused gauge = %v, want 0", got)
	}
}

func TestDryRunJournalsSkippedOnly(t *testing.T) {
	w, k := newKeeper(t)
	p := repayPlan("dry")
	p.DryRun = true
	for i := range 2 {
		if got := k.run(p); got != action.OutcomeDryRun {
			t.Fatalf("run %d = %s, want dry_run", i+1, got)
		}
	}
	act := k.action(t, "dry-"+p.ID)
	if act.State != journal.StateSkipped || act.Rule != "dry-run" || !act.DryRun || act.AttemptCount != 0 {
		t.Errorf("dry-run action: state %s rule %q dry %v attempts %d", act.State, act.Rule, act.DryRun, act.AttemptCount)
	}
	if _, err := k.journal.Get(t.Context(), p.ID); !isNotFound(err) {
		t.Errorf("the real action ID is journaled: %v", err)
	}
	if got := w.log.list(); !slices.Equal(got, []string{"journal.Begin", "journal.Begin"}) {
		t.Errorf("calls in two dry runs = %v, want only the intents", got)
	}
	if got := k.actions(action.OutcomeDryRun); got != 1 {
		t.Errorf("actions_total{outcome=dry_run} = %v, want 1 (the second run found it journaled)", got)
	}
	p.DryRun = false
	if got := k.run(p); got != action.OutcomeLanded {
		t.Errorf("same plan without dry run = %s, want landed", got)
	}
}

func TestLandedPlanIsNotTakenAgain(t *testing.T) {
	w, k := newKeeper(t)
	p := repayPlan("once")
	if got := k.run(p); got != action.OutcomeLanded {
		t.Fatalf("first run = %s, want landed", got)
	}
	before := len(w.log.list())
	for i := range 2 {
		if got := k.run(p); got != action.OutcomeSettled {
			t.Errorf("run %d = %s, want settled", i+2, got)
		}
	}
	if after := w.log.list()[before:]; !slices.Equal(after, []string{"journal.Start", "journal.Start"}) {
		t.Errorf("calls for a settled action = %v, want only the journal lookups", after)
	}
	if got := k.actions(action.OutcomeLanded); got != 1 {
		t.Errorf("actions_total{outcome=landed} = %v, want 1", got)
	}
}

func TestNotifications(t *testing.T) {
	cases := []struct {
		name     string
		notifyOn []notify.Event
		hostile  string
		want     []notify.Event
		detail   string
	}{
		{name: "landed is quiet by default"},
		{name: "landed when asked", notifyOn: []notify.Event{notify.Landed}, want: []notify.Event{notify.Landed}},
		{name: "refusal by default", hostile: hostileTransfer, want: []notify.Event{notify.Refused}, detail: "sol-transfer: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w, k := newKeeper(t)
				got := k.recordNotes(t)
				w.market.script(marketReply{hostile: tc.hostile})
				p := repayPlan("noted")
				p.NotifyOn = tc.notifyOn
				k.run(p)
				synctest.Wait()
				msgs := got.list()
				var events []notify.Event
				for _, m := range msgs {
					events = append(events, m.Event)
					if m.ActionID != p.ID || m.Policy != p.Policy || m.Target != p.Target || m.Reason != p.Reason {
						t.Errorf("message %+v does not describe the plan", m)
					}
					if !strings.HasPrefix(m.Detail, tc.detail) {
						t.Errorf("detail %q, want prefix %q", m.Detail, tc.detail)
					}
				}
				if !slices.Equal(events, tc.want) {
					t.Errorf("events = %v, want %v", events, tc.want)
				}
			})
		})
	}
}

// TestBoundsCoverTheWholeAction: an action of several transactions may move
// no more in all than its bounds, each transaction within them or not, and
// an inflow in one does not pay for an outflow in another.
func TestBoundsCoverTheWholeAction(t *testing.T) {
	usdc := solana.MustPublicKeyFromBase58(usdcMint)
	half := chain.Outflows{Lamports: 10_000, Tokens: map[solana.PublicKey]int64{usdc: 600_000}}
	refund := chain.Outflows{Lamports: 10_000, Tokens: map[solana.PublicKey]int64{usdc: -600_000}}
	cases := []struct {
		name string
		sims []simReply
		want action.Outcome
	}{
		{"two halves over the amount", []simReply{{outflows: half}, {outflows: half}}, action.OutcomeRefused},
		{"an inflow does not offset", []simReply{{outflows: half}, {outflows: refund}, {outflows: half}}, action.OutcomeRefused},
		{"within the amount in all", []simReply{{outflows: half}, {outflows: refund}}, action.OutcomeLanded},
	}
	for _, tc := range cases {
		for _, mode := range []journal.Mode{journal.ModeRPC, journal.ModeBundle} {
			t.Run(tc.name+"/"+string(mode), func(t *testing.T) {
				w, k := newKeeper(t)
				w.market.script(marketReply{txs: len(tc.sims)})
				w.sub.scriptSims(tc.sims...)
				w.sub.scriptSends(sendReply{outcome: chain.OutcomeLanded}, sendReply{outcome: chain.OutcomeLanded})
				p := repayPlan("split")
				if mode == journal.ModeBundle {
					p = bundlePlan("split", 100_000)
				}
				if got := k.run(p); got != tc.want {
					t.Fatalf("outcome = %s, want %s", got, tc.want)
				}
				// A bundle is simulated whole before anything is sent; an RPC
				// sequence simulates each transaction right before its own
				// send, so the one over the bound is never sent.
				wantSent := 0
				if mode == journal.ModeRPC {
					wantSent = len(tc.sims) - 1
				}
				if tc.want == action.OutcomeRefused && len(w.sub.sent) != wantSent {
					t.Errorf("sent %d submissions after a refusal, want %d", len(w.sub.sent), wantSent)
				}
			})
		}
	}
}

// TestBundleWithoutBundleSimulation: without simulateBundle, a bundle's
// later transaction that fails simulation on the state now (it depends on
// an earlier one) is bounded statically and the bundle lands; the first
// failing keeps the action retryable; an outflow over the bound found in
// any transaction that can be simulated is still refused.
func TestBundleWithoutBundleSimulation(t *testing.T) {
	dependent := simReply{err: &chain.SimError{Err: map[string]any{"InstructionError": []any{float64(0), "InvalidAccountData"}}}}
	over := simReply{outflows: chain.Outflows{Lamports: 1_000_000}}
	cases := []struct {
		name string
		sims []simReply
		want action.Outcome
	}{
		{"a dependent second transaction", []simReply{{}, dependent}, action.OutcomeLanded},
		{"a failing first transaction", []simReply{dependent}, action.OutcomeRetry},
		{"an outflow over the bound in the second", []simReply{{}, over}, action.OutcomeRefused},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, k := newKeeper(t)
			w.sub.noBundleSim = true
			w.market.script(marketReply{txs: 2})
			w.sub.scriptSims(tc.sims...)
			if got := k.run(bundlePlan("nosim", 100_000)); got != tc.want {
				t.Fatalf("outcome = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestSequenceContinuesOnlyTheSameAnswer: after an RPC sequence stopped
// midway, a rebuilt answer of as many transactions is continued after the
// ones that landed; one of another shape (the market built what is left) is
// sent whole.
func TestSequenceContinuesOnlyTheSameAnswer(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rebuilt    int
		wantSigned int
	}{
		{"same shape: the rest only", 3, 2},
		{"another shape: all of it", 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, k := newKeeper(t)
			w.market.script(marketReply{txs: 3}, marketReply{txs: tc.rebuilt})
			w.sub.scriptSends(sendReply{outcome: chain.OutcomeLanded}, sendReply{outcome: chain.OutcomeExpired})
			p := repayPlan("reshape")
			if got := k.run(p); got != action.OutcomeRetry {
				t.Fatalf("first run %s, want retry", got)
			}
			if got := k.run(p); got != action.OutcomeLanded {
				act := k.action(t, p.ID)
				t.Fatalf("second run %s (%s: %s), want landed", got, act.Rule, act.Detail)
			}
			act := k.action(t, p.ID)
			if n := len(act.Attempts[1].Signatures); n != tc.wantSigned {
				t.Errorf("second attempt signed %d transactions, want %d", n, tc.wantSigned)
			}
		})
	}
}
