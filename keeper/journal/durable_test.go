package journal

import (
	"context"
	"reflect"
	"slices"
	"testing"
)

// The synchronous levels a commit can run at: FULL fsyncs the log before
// the commit returns, NORMAL leaves it to the operating system until the
// next FULL commit.
const (
	syncNormal = 1
	syncFull   = 2
)

// lazySteps names the steps whose commit is not fsync'd: nothing outside
// the process depends on them yet, or the chain is their record.
var lazySteps = map[string]bool{"attempt": true, "built": true, "submitted": true, "settle landed": true}

// stepChainExpired settles attempt n as expired because the chain proved
// every blockhash dead.
func stepChainExpired(n int) pathStep {
	return stepSettle(n, Outcome{State: StateExpired, Rule: RuleBlockhashExpired, Detail: "settled from the chain"})
}

// durablePaths are the paths TestDurablePoints checks: every crash
// scenario, one whose signed attempt the chain expired before a new
// attempt was refused, the action path's (Start, then its attempt to a
// landing), and one that expired before it was signed.
func durablePaths() []struct {
	name  string
	steps []pathStep
	lazy  map[int]bool // indexes of further lazy steps
} {
	paths := []struct {
		name  string
		steps []pathStep
		lazy  map[int]bool
	}{
		{"chain expiry then refusal", []pathStep{
			stepBegin, stepAttempt(1, StatePlanned), stepBuilt(1), stepSigned(1), stepSubmitted(1), stepChainExpired(1),
			stepAttempt(2, StateExpired), stepBuilt(2),
			stepSettle(2, Outcome{State: StateRefused, Rule: "program-allowlist", Detail: "program X not allowed"}),
		}, map[int]bool{5: true}},
		{"started, landed", []pathStep{
			stepStart, stepBuilt(1), stepSigned(1), stepSubmitted(1),
			stepSettle(1, Outcome{State: StateLanded, FeeLamports: 5000}),
		}, nil},
		{"expiry before signing", []pathStep{
			stepBegin, stepAttempt(1, StatePlanned), stepBuilt(1), stepChainExpired(1),
		}, nil},
	}
	for _, sc := range scenarios {
		paths = append(paths, struct {
			name  string
			steps []pathStep
			lazy  map[int]bool
		}{sc.name, sc.steps, nil})
	}
	return paths
}

// TestDurablePoints checks the journal's durability contract on a file:
// it reads, inside every write transaction just before it commits, the
// synchronous level SQLite commits it at, and checks that exactly the
// intent, the signatures and tips, and the decisions the chain cannot
// give back are fsync'd. Then, for every prefix of every path, it replays
// only the steps up to the last fsync'd one (the least a power loss leaves
// on disk) and checks that recovery still has what it needs: every
// signature ever journaled, every refusal, skip and failure, and for a
// landed or chain-expired outcome that was lost, the open attempt with its
// signatures, so that recovery asks the chain and settles it the same way.
func TestDurablePoints(t *testing.T) {
	sqliteOnly(t)
	for _, p := range durablePaths() {
		t.Run(p.name, func(t *testing.T) {
			levels := commitLevels(t, p.steps)
			last := 0 // steps[:last] survive a power loss
			for k, s := range p.steps {
				want := syncFull
				if lazySteps[s.name] || p.lazy[k] {
					want = syncNormal
				}
				if levels[k] != want {
					t.Errorf("step %d (%s) committed at synchronous=%d, want %d", k+1, s.name, levels[k], want)
				}
				if levels[k] == syncFull {
					last = k + 1
				}
				checkPowerLoss(t, p.steps[:k+1], p.steps[:last])
			}
		})
	}
}

// commitLevels runs steps on a new file journal and returns the
// synchronous level of each step's one commit.
func commitLevels(t *testing.T, steps []pathStep) []int {
	t.Helper()
	j := openDSN(t, tempDSN(t), newClock())
	levels := recordLevels(j)
	for k, s := range steps {
		before := len(*levels)
		if err := s.run(t.Context(), j, crashActionID); err != nil {
			t.Fatalf("step %d (%s): %v", k+1, s.name, err)
		}
		if len(*levels) != before+1 {
			t.Fatalf("step %d (%s) made %d commits, want 1", k+1, s.name, len(*levels)-before)
		}
	}
	return *levels
}

// recordLevels makes j note the synchronous level of each write
// transaction it commits (see commitLevel) and returns the list.
func recordLevels(j *Journal) *[]int {
	var levels []int
	j.beforeCommit = func(ctx context.Context, tx dbtx) error {
		level, err := commitLevel(ctx, tx)
		levels = append(levels, level)
		return err
	}
	return &levels
}

// commitLevel reads the synchronous level tx will commit at.
func commitLevel(ctx context.Context, tx dbtx) (int, error) {
	var level int
	err := tx.tx.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&level)
	return level, err
}

// checkPowerLoss checks that the journal written by durable, the steps of
// written up to its last fsync'd one, holds what recovery needs after a
// power loss that struck once all of written had returned: every
// signature, every decision the chain cannot give back, and for each
// landed or chain-expired outcome it lost, that attempt still open with
// its signatures.
func checkPowerLoss(t *testing.T, written, durable []pathStep) {
	t.Helper()
	all, kept := replay(t, written), replay(t, durable)
	at := written[len(written)-1].name
	if got, want := journaledSignatures(kept), journaledSignatures(all); !reflect.DeepEqual(got, want) {
		t.Errorf("after %q a power loss leaves signatures %v, want %v", at, got, want)
	}
	if all.State.Final() && all.State != StateLanded && kept.State != all.State {
		t.Errorf("after %q a power loss leaves %s, want %s", at, kept.State, all.State)
	}
	for _, a := range all.Attempts {
		if a.Outcome == "" || len(kept.Attempts) >= a.Number && kept.Attempts[a.Number-1].Outcome == a.Outcome {
			continue
		}
		if a.Outcome != StateLanded && (a.Outcome != StateExpired || a.Rule != RuleBlockhashExpired) {
			t.Errorf("after %q a power loss drops attempt %d's outcome %s, which the chain cannot give back", at, a.Number, a.Outcome)
		}
		if open, ok := kept.OpenAttempt(); !ok || open.Number != a.Number || len(open.Signatures) == 0 {
			t.Errorf("after %q a power loss drops attempt %d's outcome %s but leaves no open attempt with signatures to ask the chain about",
				at, a.Number, a.Outcome)
		}
	}
}

// replay runs steps on an in-memory journal and returns the action.
func replay(t *testing.T, steps []pathStep) Action {
	t.Helper()
	mem := openMemory(t, newClock())
	if err := runSteps(t.Context(), mem, crashActionID, steps); err != nil {
		t.Fatal(err)
	}
	act, err := mem.Get(t.Context(), crashActionID)
	if err != nil {
		t.Fatal(err)
	}
	return act
}

// journaledSignatures lists every signature and tip signature of act.
func journaledSignatures(act Action) []string {
	var out []string
	for _, a := range act.Attempts {
		for _, s := range a.Signatures {
			out = append(out, s.Signature)
		}
		for _, tip := range a.Tips {
			out = append(out, tip.Signature)
		}
	}
	return slices.Clip(out)
}
