package journal

import (
	"context"
	"fmt"
)

// pathStep is one write step of the action path.
type pathStep struct {
	name string
	// want is the action's state after the step.
	want State
	run  func(ctx context.Context, j *Journal, id string) error
}

// Steps of the action path, reused by the crash, concurrency and benchmark
// code.
var (
	stepBegin = pathStep{"begin", StatePlanned, func(ctx context.Context, j *Journal, id string) error {
		_, _, err := j.Begin(ctx, testIntent(id))
		return err
	}}
	// stepStart journals the intent with attempt 1 open, as the action
	// path does.
	stepStart = pathStep{"start", StatePlanned, func(ctx context.Context, j *Journal, id string) error {
		_, att, created, err := j.Start(ctx, testIntent(id))
		if err == nil && (!created || att.Number != 1) {
			err = fmt.Errorf("Start = attempt %d, created %v; want attempt 1 of a new action", att.Number, created)
		}
		return err
	}}
	stepFinishSkipped = pathStep{"finish skipped", StateSkipped, func(ctx context.Context, j *Journal, id string) error {
		return j.Finish(ctx, id, Outcome{State: StateSkipped, Rule: "cooldown", Detail: "landed 5m ago"})
	}}
)

// stepAttempt starts attempt n; want is the action's state afterwards.
func stepAttempt(n int, want State) pathStep {
	return pathStep{"attempt", want, func(ctx context.Context, j *Journal, id string) error {
		att, err := j.NewAttempt(ctx, id)
		if err == nil && (att.Number != n || att.IdempotencyKey != fmt.Sprintf("%s-%d", id, n)) {
			err = fmt.Errorf("NewAttempt = number %d key %q, want %d and %s-%d", att.Number, att.IdempotencyKey, n, id, n)
		}
		return err
	}}
}

// stepBuilt records the build of attempt n.
func stepBuilt(n int) pathStep {
	return pathStep{"built", StateBuilt, func(ctx context.Context, j *Journal, id string) error {
		return j.RecordBuilt(ctx, id, n, buildFor(n))
	}}
}

// stepSigned records the signatures of attempt n.
func stepSigned(n int) pathStep {
	return pathStep{"signed", StateSigned, func(ctx context.Context, j *Journal, id string) error {
		return j.RecordSigned(ctx, id, n, signedFor(id, n, 3))
	}}
}

// stepSubmitted records the submission of attempt n.
func stepSubmitted(n int) pathStep {
	return pathStep{"submitted", StateSubmitted, func(ctx context.Context, j *Journal, id string) error {
		return j.RecordSubmitted(ctx, id, n)
	}}
}

// tipFor returns tip k (from 0) of attempt n of action id.
func tipFor(id string, n, k int, lamports uint64) Tip {
	return Tip{
		Signature:   fmt.Sprintf("tip-%s-%d-%d", id, n, k),
		Blockhash:   fmt.Sprintf("bh-%d", n),
		Account:     fmt.Sprintf("tip-account-%d", k),
		Lamports:    lamports,
		Transaction: fmt.Sprintf("dGlw-%d-%d", n, k),
	}
}

// stepTip journals tip k of attempt n; want is the action's state, which a
// tip does not change.
func stepTip(n, k int, lamports uint64, want State) pathStep {
	return pathStep{"tip", want, func(ctx context.Context, j *Journal, id string) error {
		return j.RecordTip(ctx, id, n, tipFor(id, n, k, lamports))
	}}
}

// stepSettle settles attempt n in out.
func stepSettle(n int, out Outcome) pathStep {
	return pathStep{"settle " + string(out.State), out.State, func(ctx context.Context, j *Journal, id string) error {
		return j.Settle(ctx, id, n, out)
	}}
}

// scenarios are whole action paths, each step a possible crash point.
var scenarios = []struct {
	name  string
	steps []pathStep
}{
	{"expire then land", []pathStep{
		stepBegin, stepAttempt(1, StatePlanned), stepBuilt(1), stepSigned(1), stepSubmitted(1),
		stepSettle(1, Outcome{State: StateExpired, Detail: "blockhash expired at height 1000"}),
		stepAttempt(2, StateExpired), stepBuilt(2), stepSigned(2), stepSubmitted(2),
		stepSettle(2, Outcome{State: StateLanded, Detail: "slot 42", FeeLamports: 15_000, TipLamports: 10_000}),
	}},
	{"guard refuses", []pathStep{
		stepBegin, stepAttempt(1, StatePlanned), stepBuilt(1),
		stepSettle(1, Outcome{State: StateRefused, Rule: "program-allowlist", Detail: "program X not allowed"}),
	}},
	{"landed with error", []pathStep{
		stepBegin, stepAttempt(1, StatePlanned), stepBuilt(1), stepSigned(1),
		stepSettle(1, Outcome{State: StateFailed, Rule: "chain", Detail: "custom program error 0x1771", FeeLamports: 5000}),
	}},
	{"skipped by limit", []pathStep{stepBegin, stepFinishSkipped}},
	{"bundle with a raised tip", []pathStep{
		stepBegin, stepAttempt(1, StatePlanned), stepBuilt(1), stepSigned(1), stepTip(1, 0, 10_000, StateSigned),
		stepSubmitted(1), stepTip(1, 1, 20_000, StateSubmitted),
		stepSettle(1, Outcome{State: StateLanded, Detail: "slot 43", FeeLamports: 15_000, TipLamports: 20_000}),
	}},
}

// runSteps runs steps on action id, stopping at the first error.
func runSteps(ctx context.Context, j *Journal, id string, steps []pathStep) error {
	for _, s := range steps {
		if err := s.run(ctx, j, id); err != nil {
			return err
		}
	}
	return nil
}
