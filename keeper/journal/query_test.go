package journal

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// dayStart is the "since" of the limit queries.
var dayStart = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

// fixtureAction describes one action of the query fixture.
type fixtureAction struct {
	id, policy, target, mint string
	amount                   uint64
	dryRun                   bool
	created                  time.Duration // after dayStart
	steps                    []pathStep    // after Begin
}

// landAt returns the steps that land attempt 1 at dayStart+at.
func landAt(clk *clock, at time.Duration, fee, tip uint64) []pathStep {
	settle := stepSettle(1, Outcome{State: StateLanded, FeeLamports: fee, TipLamports: tip})
	return []pathStep{stepAttempt(1, StatePlanned), stepBuilt(1), stepSigned(1), stepSubmitted(1),
		{"clock", StateSubmitted, func(_ context.Context, _ *Journal, _ string) error {
			clk.set(dayStart.Add(at))
			return nil
		}}, settle}
}

// queryFixture journals a day of actions and returns the journal.
func queryFixture(t *testing.T) *Journal {
	t.Helper()
	clk := newClock()
	j := openMemory(t, clk)
	h := time.Hour
	fixture := []fixtureAction{
		{"old-landed", "repay-sol", "L1", "usdc", 100, false, -2 * h, landAt(clk, -h, 5000, 1000)},
		{"landed-1", "repay-sol", "L1", "usdc", 200, false, 1 * h, landAt(clk, 2*h, 5000, 2000)},
		{"landed-2", "repay-sol", "L2", "usdc", 300, false, 3 * h, landAt(clk, 3*h+time.Minute, 6000, 0)},
		{"inflight", "repay-sol", "L1", "usdc", 400, false, 4 * h, upTo(afterSubmitted1)[1:]},
		{"expired", "repay-sol", "L1", "usdc", 500, false, 5 * h, upTo(afterExpired1)[1:]},
		{"failed", "repay-sol", "L1", "usdc", 600, false, 6 * h, scenarios[2].steps[1:]},
		{"refused", "repay-sol", "L1", "usdc", 700, false, 7 * h, scenarios[1].steps[1:]},
		{"dry", "repay-sol", "L1", "usdc", 800, true, 8 * h, []pathStep{stepAttempt(1, StatePlanned), stepBuilt(1),
			stepSettle(1, Outcome{State: StateSkipped, Rule: "dry-run"})}},
		{"sol-plan", "repay-sol", "L3", "sol", 50, false, 9 * h, nil},
		{"other-policy", "claim", "L1", "", 0, false, 10 * h, landAt(clk, 11*h, 5000, 0)},
	}
	for _, f := range fixture {
		in := Intent{ID: f.id, Policy: f.policy, Kind: "repay", Target: f.target, Mint: f.mint,
			Amount: f.amount, DryRun: f.dryRun}
		clk.set(dayStart.Add(f.created))
		mustBegin(t, j, in)
		if err := runSteps(t.Context(), j, f.id, f.steps); err != nil {
			t.Fatalf("fixture %s: %v", f.id, err)
		}
	}
	return j
}

func TestList(t *testing.T) {
	j := queryFixture(t)
	h := time.Hour
	tests := []struct {
		name string
		f    Filter
		want []string
	}{
		{"everything newest first", Filter{}, []string{"other-policy", "sol-plan", "dry", "refused", "failed",
			"expired", "inflight", "landed-2", "landed-1", "old-landed"}},
		{"policy", Filter{Policy: "claim"}, []string{"other-policy"}},
		{"window", Filter{Since: dayStart.Add(3 * h), Until: dayStart.Add(6 * h)},
			[]string{"expired", "inflight", "landed-2"}},
		{"states", Filter{States: []State{StateLanded}}, []string{"other-policy", "landed-2", "landed-1", "old-landed"}},
		{"states and policy", Filter{Policy: "repay-sol", States: []State{StateRefused, StateSkipped}},
			[]string{"dry", "refused"}},
		{"target", Filter{Target: "L2"}, []string{"landed-2"}},
		{"target and states", Filter{Target: "L1", States: []State{StateSubmitted, StateExpired}},
			[]string{"expired", "inflight"}},
		{"limit", Filter{Limit: 2}, []string{"other-policy", "sol-plan"}},
		{"nothing", Filter{Policy: "nobody"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acts, err := j.List(t.Context(), tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(acts); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("List = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestListCarriesAttempts(t *testing.T) {
	j := queryFixture(t)
	acts, err := j.List(t.Context(), Filter{States: []State{StateSubmitted}})
	if err != nil || len(acts) != 1 {
		t.Fatalf("List = %d actions, %v; want 1", len(acts), err)
	}
	got := acts[0]
	if len(got.Attempts) != 1 || !reflect.DeepEqual(got.Attempts[0].Signatures, signedFor("inflight", 1, 3)) ||
		!reflect.DeepEqual(got.Attempts[0].Transactions, buildFor(1).Transactions) {
		t.Fatalf("inflight attempts = %+v, want one with its transactions and 3 signatures", got.Attempts)
	}
}

func TestListRejectsBadFilter(t *testing.T) {
	j := openMemory(t, newClock())
	for _, f := range []Filter{{States: []State{"bogus"}}, {Limit: -1}} {
		if _, err := j.List(t.Context(), f); !errors.Is(err, ErrInvalid) {
			t.Errorf("List(%+v) error = %v, want ErrInvalid", f, err)
		}
	}
}

func TestPendingOrderAndContent(t *testing.T) {
	j := queryFixture(t)
	acts, err := j.Pending(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(acts), []string{"inflight", "expired", "sol-plan"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Pending = %v, want %v", got, want)
	}
	if a := acts[1]; a.State != StateExpired || a.Attempts[0].Outcome != StateExpired {
		t.Fatalf("expired action = %+v", a)
	}
}

func TestGetUnknown(t *testing.T) {
	j := openMemory(t, newClock())
	if _, err := j.Get(t.Context(), "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get error = %v, want ErrNotFound", err)
	}
}

func TestListLoadsAttemptsBeyondOneChunk(t *testing.T) {
	j := openMemory(t, newClock())
	n := idChunk + 37
	for i := range n {
		if err := runSteps(t.Context(), j, fmt.Sprintf("c%04d", i), upTo(afterBuilt1)); err != nil {
			t.Fatal(err)
		}
	}
	acts, err := j.List(t.Context(), Filter{})
	if err != nil || len(acts) != n {
		t.Fatalf("List = %d actions, %v; want %d", len(acts), err, n)
	}
	for _, a := range acts {
		if len(a.Attempts) != 1 || a.Attempts[0].IdempotencyKey != a.ID+"-1" || len(a.Attempts[0].Transactions) != 2 {
			t.Fatalf("action %s attempts = %+v, want its one built attempt", a.ID, a.Attempts)
		}
	}
}

// ids returns the IDs of acts in order.
func ids(acts []Action) []string {
	out := make([]string, len(acts))
	for i, a := range acts {
		out[i] = a.ID
	}
	return out
}
