package keeper

import (
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/policies"
)

func TestLanesOf(t *testing.T) {
	repay := func(target string, amount uint64) action.Plan {
		return action.Plan{Target: target, Mint: usdcMint, Amount: amount}
	}
	fromCollateral := repay("c", 5)
	fromCollateral.Request.CollateralRepay = &policies.CollateralRepay{}
	dry := repay("d", 5)
	dry.DryRun = true
	proposal := func(target string) action.Plan {
		return action.Plan{Target: target, Squads: &policies.SquadsAuthority{Multisig: "ms"}}
	}
	usdc := map[string]bool{usdcMint: true}
	for _, c := range []struct {
		name   string
		plans  []action.Plan
		serial map[string]bool
		n      int
		want   [][]int
	}{
		{"covered repays run side by side", []action.Plan{repay("a", 1), repay("b", 1), repay("c", 1)}, nil, 4,
			[][]int{{0}, {1}, {2}}},
		{"one at a time keeps the plan's order", []action.Plan{repay("a", 1), repay("b", 1), repay("c", 1)}, usdc, 1,
			[][]int{{0, 1, 2}}},
		{"an uncovered mint's repays run in turn beside the rest",
			[]action.Plan{repay("a", 1), {Target: "claim"}, repay("b", 1), fromCollateral, dry}, usdc, 4,
			[][]int{{0, 2}, {1}, {3}, {4}}},
		{"one target's actions run in turn", []action.Plan{repay("a", 1), repay("b", 1), repay("a", 1)}, nil, 4,
			[][]int{{0, 2}, {1}}},
		{"proposals to one multisig run in turn", []action.Plan{proposal("a"), repay("b", 1), proposal("c")}, usdc, 4,
			[][]int{{0, 2}, {1}}},
		{"a plan in two lanes joins them", []action.Plan{repay("a", 1), {Target: "b"}, repay("b", 1), {Target: "c"}}, usdc, 4,
			[][]int{{0, 1, 2}, {3}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := lanesOf(c.plans, c.serial, c.n); !reflect.DeepEqual(got, c.want) {
				t.Errorf("lanes %v, want %v", got, c.want)
			}
		})
	}
}

// laneRecorder is an action path whose plans end when the test says.
type laneRecorder struct {
	mu      sync.Mutex
	started []int
	end     map[int]chan struct{}
}

func newLaneRecorder(count int) *laneRecorder {
	r := &laneRecorder{end: map[int]chan struct{}{}}
	for i := range count {
		r.end[i] = make(chan struct{})
	}
	return r
}

func (r *laneRecorder) exec(i int) action.Result {
	r.mu.Lock()
	r.started = append(r.started, i)
	r.mu.Unlock()
	<-r.end[i]
	return action.Result{Outcome: action.Outcome("plan-" + strconv.Itoa(i))}
}

func (r *laneRecorder) startedSoFar() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int(nil), r.started...)
}

// TestRunLanesOverlapInPlanOrder: the first n lanes start together, the
// next when one of them ends, and the results come back in plan order
// although the plans end in reverse.
func TestRunLanesOverlapInPlanOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newLaneRecorder(3)
		done := make(chan []action.Result)
		go func() { done <- runLanes(slog.New(slog.DiscardHandler), [][]int{{0}, {1}, {2}}, 3, 2, r.exec) }()
		synctest.Wait()
		if got := r.startedSoFar(); !reflect.DeepEqual(got, []int{0, 1}) && !reflect.DeepEqual(got, []int{1, 0}) {
			t.Fatalf("started %v, want plans 0 and 1 at once and not 2", got)
		}
		close(r.end[1])
		synctest.Wait()
		if got := r.startedSoFar(); len(got) != 3 || got[2] != 2 {
			t.Fatalf("started %v, want plan 2 once plan 1 ended", got)
		}
		close(r.end[2])
		close(r.end[0])
		res := <-done
		for i, x := range res {
			if want := action.Outcome("plan-" + strconv.Itoa(i)); x.Outcome != want {
				t.Errorf("result %d is %q, want %q", i, x.Outcome, want)
			}
		}
	})
}

// TestRunLanesOneAtATime: with a bound of 1 each plan starts once the one
// before it ended, in plan order.
func TestRunLanesOneAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newLaneRecorder(3)
		done := make(chan []action.Result)
		go func() {
			done <- runLanes(slog.New(slog.DiscardHandler), lanesOf(make([]action.Plan, 3), nil, 1), 3, 1, r.exec)
		}()
		for i := range 3 {
			synctest.Wait()
			if got, want := r.startedSoFar(), []int{0, 1, 2}[:i+1]; !reflect.DeepEqual(got, want) {
				t.Fatalf("started %v, want %v", got, want)
			}
			close(r.end[i])
		}
		<-done
	})
}

// TestRunLanesPanicEndsTheRun: an action that panics (a process killed
// mid-action, in the crash tests) starts no later lane, and the panic
// reaches the run's caller, as it did when a run acted on its plans one by
// one (the scheduler recovers it: it must not kill the daemon).
func TestRunLanesPanicEndsTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newLaneRecorder(3)
		exec := func(i int) action.Result {
			if i == 0 {
				r.mu.Lock()
				r.started = append(r.started, 0)
				r.mu.Unlock()
				panic("killed")
			}
			return r.exec(i)
		}
		got := make(chan any)
		go func() {
			defer func() { got <- recover() }()
			runLanes(slog.New(slog.DiscardHandler), [][]int{{0}, {1}, {2}}, 3, 2, exec)
		}()
		synctest.Wait()
		close(r.end[1])
		if p := <-got; p != "killed" {
			t.Errorf("recovered %v, want the action's panic", p)
		}
		if started := r.startedSoFar(); len(started) != 2 || slices.Contains(started, 2) {
			t.Errorf("started %v, want plans 0 and 1 only", started)
		}
	})
}
