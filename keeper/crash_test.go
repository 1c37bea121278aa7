package keeper

import (
	"fmt"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"regexp"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/journal"
)

// crashSteps are the points of the action path where the process dies, in
// path order: just before each dependency call. The answer is simulated
// unsigned before it is signed ("signer.SignSequence"), and its signatures
// are journaled before anything signed is handed over. "submitter.tipped" dies
// after a bundle's tip was journaled and handed over, before the bundle is
// sent; "submitter.sent" dies right after the transactions reached the
// chain, before keeper hears of it.
var crashSteps = []string{
	"journal.Start",
	"market.build",
	"journal.RecordBuilt",
	"submitter.Simulate",
	"signer.SignSequence",
	"journal.RecordSigned",
	"journal.RecordSubmitted",
	"submitter.send",
	"journal.RecordTip",
	"submitter.tipped",
	"submitter.sent",
	"journal.Settle",
}

// bundleSteps are the crash steps only a bundle passes.
var bundleSteps = map[string]bool{"journal.RecordTip": true, "submitter.tipped": true}

// TestKillBetweenAnyTwoSteps kills keeper at every step boundary, starts a
// new keeper on the same journal file, recovers and runs the same plan
// again: the action lands exactly once, and a signature goes out twice only
// as the same bytes.
func TestKillBetweenAnyTwoSteps(t *testing.T) {
	for _, mode := range []journal.Mode{journal.ModeRPC, journal.ModeBundle} {
		for _, step := range crashSteps {
			if bundleSteps[step] && mode != journal.ModeBundle {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", mode, step), func(t *testing.T) {
				w := newWorld(t)
				dsn := dsnIn(t.TempDir())
				p := repayPlan("kill")
				p.Submit.Mode = mode

				w.crash.set(step)
				first := w.open(t, dsn)
				if got, _ := first.executeUntilCrash(p); got != step {
					t.Fatalf("crashed at %q, want %q", got, step)
				}
				if err := first.Close(); err != nil {
					t.Fatalf("close after crash: %v", err)
				}

				second := w.open(t, dsn)
				if err := second.Recover(t.Context()); err != nil {
					t.Fatalf("Recover: %v", err)
				}
				if got := second.run(p); got != action.OutcomeLanded && got != action.OutcomeSettled {
					t.Fatalf("run after restart = %s, want landed or settled", got)
				}
				if got := second.run(p); got != action.OutcomeSettled {
					t.Errorf("third run = %s, want settled", got)
				}
				checkLandedOnce(t, w, second, p)
			})
		}
	}
}

// TestCompletedRunSurvivesRestart is the boundary after the last step.
func TestCompletedRunSurvivesRestart(t *testing.T) {
	w := newWorld(t)
	dsn := dsnIn(t.TempDir())
	p := repayPlan("done")
	first := w.open(t, dsn)
	if got := first.run(p); got != action.OutcomeLanded {
		t.Fatalf("run = %s, want landed", got)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second := w.open(t, dsn)
	if err := second.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := second.run(p); got != action.OutcomeSettled {
		t.Errorf("run after restart = %s, want settled", got)
	}
	checkLandedOnce(t, w, second, p)
}

var keyPattern = regexp.MustCompile(`^(.+)-([0-9]+)$`)

// checkLandedOnce asserts that p's action is journaled landed, that exactly
// one attempt's transactions are on chain, that it is the attempt the
// journal says landed, and that builds used increasing keys of p's ID.
func checkLandedOnce(t *testing.T, w *world, k *testKeeper, p action.Plan) {
	t.Helper()
	act := k.action(t, p.ID)
	if act.State != journal.StateLanded {
		t.Fatalf("journal state %s rule %q, want landed", act.State, act.Rule)
	}
	landedAttempts := 0
	for _, a := range act.Attempts {
		sigs := make([]solana.Signature, len(a.Signatures))
		for i, s := range a.Signatures {
			sigs[i] = solana.MustSignatureFromBase58(s.Signature)
		}
		n := w.sub.landedCount(sigs)
		if n > 0 {
			landedAttempts++
			if a.Outcome != journal.StateLanded {
				t.Errorf("attempt %d is on chain but journaled %q", a.Number, a.Outcome)
			}
		}
		if a.Outcome == journal.StateLanded && n != len(sigs) {
			t.Errorf("attempt %d journaled landed with %d of %d transactions on chain", a.Number, n, len(sigs))
		}
	}
	if landedAttempts != 1 {
		t.Errorf("%d attempts on chain, want exactly 1", landedAttempts)
	}
	if sig, n := w.sub.mostSent(); n > 1 {
		t.Errorf("signature %s sent %d times; nothing here calls for a rebroadcast", sig, n)
	}
	last := 0
	for _, key := range w.market.keys() {
		m := keyPattern.FindStringSubmatch(key)
		var n int
		if m == nil || m[1] != p.ID {
			t.Errorf("build key %q is not %s-<attempt>", key, p.ID)
			continue
		}
		fmt.Sscan(m[2], &n)
		if n <= last {
			t.Errorf("build keys %v do not increase", w.market.keys())
		}
		last = n
	}
	if last != act.AttemptCount {
		t.Errorf("last build key attempt %d, journal has %d attempts", last, act.AttemptCount)
	}
}
