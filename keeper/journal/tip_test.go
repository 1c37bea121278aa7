package journal

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"
)

func TestTipsAreLoadedEverywhere(t *testing.T) {
	ctx := t.Context()
	j := openMemory(t, newClock())
	steps := slices.Concat(upTo(afterSubmitted1), []pathStep{
		stepTip(1, 0, 10_000, StateSubmitted), stepTip(1, 1, 20_000, StateSubmitted),
	})
	if err := runSteps(ctx, j, "a", steps); err != nil {
		t.Fatal(err)
	}
	got, err := j.Get(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	// The clock ticks a second per reading: the tips are journaled at the
	// two readings after the submission.
	submitted := got.Attempts[0].SubmittedAt
	want := []Tip{tipFor("a", 1, 0, 10_000), tipFor("a", 1, 1, 20_000)}
	want[0].RecordedAt, want[1].RecordedAt = submitted.Add(time.Second), submitted.Add(2*time.Second)
	if !reflect.DeepEqual(got.Attempts[0].Tips, want) {
		t.Errorf("Get: tips = %+v\nwant %+v", got.Attempts[0].Tips, want)
	}
	if got.State != StateSubmitted || len(got.Attempts[0].Signatures) != 3 {
		t.Errorf("Get: state %s with %d signatures, want submitted with 3", got.State, len(got.Attempts[0].Signatures))
	}
	pending, err := j.Pending(ctx)
	if err != nil || len(pending) != 1 || !reflect.DeepEqual(pending[0], got) {
		t.Errorf("Pending = %+v, %v; want the action as Get returns it", pending, err)
	}
	listed, err := j.List(ctx, Filter{})
	if err != nil || len(listed) != 1 || !reflect.DeepEqual(listed[0], got) {
		t.Errorf("List = %+v, %v; want the action as Get returns it", listed, err)
	}
}

func TestTipsStayWithTheirAttempt(t *testing.T) {
	ctx := t.Context()
	j := openMemory(t, newClock())
	steps := slices.Concat(upTo(afterSubmitted1), []pathStep{stepTip(1, 0, 10_000, StateSubmitted)},
		scenarios[0].steps[afterSubmitted1:afterSubmitted1+5], []pathStep{stepTip(2, 0, 30_000, StateSubmitted)})
	if err := runSteps(ctx, j, "a", steps); err != nil {
		t.Fatal(err)
	}
	if err := runSteps(ctx, j, "b", upTo(afterSubmitted1)); err != nil {
		t.Fatal(err)
	}
	a, err := j.Get(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []Tip{tipFor("a", 1, 0, 10_000), tipFor("a", 2, 0, 30_000)} {
		if tips := a.Attempts[i].Tips; len(tips) != 1 || tips[0].Signature != want.Signature || tips[0].Lamports != want.Lamports {
			t.Errorf("attempt %d tips = %+v, want only %s", i+1, tips, want.Signature)
		}
	}
	if b, err := j.Get(ctx, "b"); err != nil || b.Attempts[0].Tips != nil {
		t.Errorf("action b: tips %+v, %v; want none", b.Attempts[0].Tips, err)
	}
}

func TestTipSignatureIsUniqueAcrossTheJournal(t *testing.T) {
	tests := []struct {
		name string
		// call journals a signature that action "a" already holds, on
		// action "b" (signed, attempt 1, no tips yet).
		call func(ctx context.Context, j *Journal) error
	}{
		{"tip reusing another action's tip", func(ctx context.Context, j *Journal) error {
			tip := tipFor("b", 1, 0, 10_000)
			tip.Signature = tipFor("a", 1, 0, 0).Signature
			return j.RecordTip(ctx, "b", 1, tip)
		}},
		{"tip reusing another action's transaction", func(ctx context.Context, j *Journal) error {
			tip := tipFor("b", 1, 0, 10_000)
			tip.Signature = signedFor("a", 1, 3)[1].Signature
			return j.RecordTip(ctx, "b", 1, tip)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			j := openMemory(t, newClock())
			if err := runSteps(ctx, j, "a", slices.Concat(upTo(afterSigned1), []pathStep{stepTip(1, 0, 10_000, StateSigned)})); err != nil {
				t.Fatal(err)
			}
			if err := runSteps(ctx, j, "b", upTo(afterSigned1)); err != nil {
				t.Fatal(err)
			}
			before, _ := j.Get(ctx, "b")
			if err := tt.call(ctx, j); !errors.Is(err, ErrInvalid) {
				t.Fatalf("error = %v, want ErrInvalid", err)
			}
			if after, _ := j.Get(ctx, "b"); !reflect.DeepEqual(before, after) {
				t.Fatalf("refused tip changed b:\nbefore %+v\n after %+v", before, after)
			}
		})
	}
}

func TestSignedTransactionCannotReuseATip(t *testing.T) {
	ctx := t.Context()
	j := openMemory(t, newClock())
	if err := runSteps(ctx, j, "a", slices.Concat(upTo(afterSigned1), []pathStep{stepTip(1, 0, 10_000, StateSigned)})); err != nil {
		t.Fatal(err)
	}
	if err := runSteps(ctx, j, "b", upTo(afterBuilt1)); err != nil {
		t.Fatal(err)
	}
	sigs := signedFor("b", 1, 2)
	sigs[1].Signature = tipFor("a", 1, 0, 0).Signature
	if err := j.RecordSigned(ctx, "b", 1, sigs); !errors.Is(err, ErrInvalid) {
		t.Fatalf("RecordSigned with a journaled tip's signature: error %v, want ErrInvalid", err)
	}
	b, err := j.Get(ctx, "b")
	if err != nil || b.State != StateBuilt || b.Attempts[0].Signatures != nil {
		t.Fatalf("after the refusal b = %+v, %v; want built without signatures", b, err)
	}
}

func TestCountedTip(t *testing.T) {
	open := upTo(afterSubmitted1) // attempt 1 in flight, planned tip 10000
	tests := []struct {
		name  string
		steps []pathStep
		want  uint64
	}{
		{"in flight without tips counts the planned tip", open, 10_000},
		{"in flight counts the largest tip", slices.Concat(open, []pathStep{
			stepTip(1, 0, 12_000, StateSubmitted), stepTip(1, 1, 40_000, StateSubmitted), stepTip(1, 2, 20_000, StateSubmitted),
		}), 40_000},
		{"in flight with tips below the planned one", slices.Concat(open, []pathStep{
			stepTip(1, 0, 4_000, StateSubmitted),
		}), 10_000},
		{"landed counts the settled tip", slices.Concat(open, []pathStep{
			stepTip(1, 0, 10_000, StateSubmitted), stepTip(1, 1, 40_000, StateSubmitted),
			stepSettle(1, Outcome{State: StateLanded, FeeLamports: 5_000, TipLamports: 10_000}),
		}), 5_000 + 10_000},
		{"expired counts what Settle recorded", slices.Concat(open, []pathStep{
			stepTip(1, 0, 40_000, StateSubmitted), stepSettle(1, Outcome{State: StateExpired}),
		}), 0},
		{"expired attempt and a new one in flight", slices.Concat(open, []pathStep{
			stepTip(1, 0, 40_000, StateSubmitted), stepSettle(1, Outcome{State: StateExpired}),
			stepAttempt(2, StateExpired), stepBuilt(2), stepSigned(2), stepTip(2, 0, 60_000, StateSigned),
		}), 60_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			j := openMemory(t, newClock())
			if err := runSteps(ctx, j, "a", tt.steps); err != nil {
				t.Fatal(err)
			}
			act, err := j.Get(ctx, "a")
			if err != nil {
				t.Fatal(err)
			}
			var counted uint64
			for _, att := range act.Attempts {
				counted += att.FeeLamports + att.CountedTip()
			}
			if counted != tt.want {
				t.Errorf("fees + CountedTip over the attempts = %d, want %d", counted, tt.want)
			}
		})
	}
}
