package journal

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
)

// upTo returns the first k steps of the "expire then land" scenario.
func upTo(k int) []pathStep { return scenarios[0].steps[:k] }

// Step counts of the "expire then land" scenario.
const (
	afterBegin      = 1
	afterAttempt1   = 2
	afterBuilt1     = 3
	afterSigned1    = 4
	afterSubmitted1 = 5
	afterExpired1   = 6
	afterAttempt2   = 7
	afterLanded2    = 11
)

func TestWriteSteps(t *testing.T) {
	tests := []struct {
		name    string
		setup   []pathStep
		call    func(ctx context.Context, j *Journal, id string) error
		wantErr error
		// wantState is checked after a successful call; a refused call must
		// leave the action exactly as it was.
		wantState State
	}{
		{"built without attempt", upTo(afterBegin), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordBuilt(ctx, id, 1, buildFor(1))
		}, ErrAttemptNotOpen, ""},
		{"signed before built", upTo(afterAttempt1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordSigned(ctx, id, 1, signedFor(id, 1, 1))
		}, ErrIllegalTransition, ""},
		{"submitted before signed", upTo(afterBuilt1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordSubmitted(ctx, id, 1)
		}, ErrIllegalTransition, ""},
		{"built twice", upTo(afterBuilt1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordBuilt(ctx, id, 1, buildFor(1))
		}, ErrIllegalTransition, ""},
		{"built for a future attempt", upTo(afterAttempt1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordBuilt(ctx, id, 2, buildFor(2))
		}, ErrAttemptNotOpen, ""},
		{"new attempt while one is open", upTo(afterBuilt1), func(ctx context.Context, j *Journal, id string) error {
			_, err := j.NewAttempt(ctx, id)
			return err
		}, ErrAttemptNotOpen, ""},
		{"new attempt after landing", upTo(afterLanded2), func(ctx context.Context, j *Journal, id string) error {
			_, err := j.NewAttempt(ctx, id)
			return err
		}, ErrIllegalTransition, ""},
		{"landed before signed", upTo(afterBuilt1), func(ctx context.Context, j *Journal, id string) error {
			return j.Settle(ctx, id, 1, Outcome{State: StateLanded})
		}, ErrIllegalTransition, ""},
		{"build abandoned: expired before built", upTo(afterAttempt1), func(ctx context.Context, j *Journal, id string) error {
			return j.Settle(ctx, id, 1, Outcome{State: StateExpired, Rule: "build-retryable"})
		}, nil, StateExpired},
		{"skipped after signing", upTo(afterSigned1), func(ctx context.Context, j *Journal, id string) error {
			return j.Settle(ctx, id, 1, Outcome{State: StateSkipped})
		}, ErrIllegalTransition, ""},
		{"settle after landing", upTo(afterLanded2), func(ctx context.Context, j *Journal, id string) error {
			return j.Settle(ctx, id, 2, Outcome{State: StateFailed})
		}, ErrAttemptNotOpen, ""},
		{"settle the expired attempt", upTo(afterAttempt2), func(ctx context.Context, j *Journal, id string) error {
			return j.Settle(ctx, id, 1, Outcome{State: StateLanded})
		}, ErrAttemptNotOpen, ""},
		{"finish with an open attempt", upTo(afterSubmitted1), func(ctx context.Context, j *Journal, id string) error {
			return j.Finish(ctx, id, Outcome{State: StateFailed})
		}, ErrAttemptNotOpen, ""},
		{"finish after landing", upTo(afterLanded2), func(ctx context.Context, j *Journal, id string) error {
			return j.Finish(ctx, id, Outcome{State: StateRefused})
		}, ErrIllegalTransition, ""},
		{"finish as landed", upTo(afterBegin), func(ctx context.Context, j *Journal, id string) error {
			return j.Finish(ctx, id, Outcome{State: StateLanded})
		}, ErrInvalid, ""},
		{"finish with fees", upTo(afterBegin), func(ctx context.Context, j *Journal, id string) error {
			return j.Finish(ctx, id, Outcome{State: StateFailed, FeeLamports: 5000})
		}, ErrInvalid, ""},
		{"settle as planned", upTo(afterSubmitted1), func(ctx context.Context, j *Journal, id string) error {
			return j.Settle(ctx, id, 1, Outcome{State: StatePlanned})
		}, ErrInvalid, ""},
		{"build without transactions", upTo(afterAttempt1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordBuilt(ctx, id, 1, Build{Mode: ModeRPC})
		}, ErrInvalid, ""},
		{"build with unknown mode", upTo(afterAttempt1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordBuilt(ctx, id, 1, Build{Transactions: []string{"dHg="}, Mode: "jito"})
		}, ErrInvalid, ""},
		{"sign nothing", upTo(afterBuilt1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordSigned(ctx, id, 1, nil)
		}, ErrInvalid, ""},
		{"sign without blockhash", upTo(afterBuilt1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordSigned(ctx, id, 1, []SignedTx{{Signature: "s1"}})
		}, ErrInvalid, ""},
		{"sign the same signature twice", upTo(afterBuilt1), func(ctx context.Context, j *Journal, id string) error {
			s := SignedTx{Signature: "s1", Blockhash: "b"}
			return j.RecordSigned(ctx, id, 1, []SignedTx{s, s})
		}, ErrInvalid, ""},
		{"unknown action", nil, func(ctx context.Context, j *Journal, id string) error {
			_, err := j.NewAttempt(ctx, id)
			return err
		}, ErrNotFound, ""},
		{"tip without an attempt", upTo(afterBegin), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordTip(ctx, id, 1, tipFor(id, 1, 0, 10_000))
		}, ErrAttemptNotOpen, ""},
		{"tip before signing", upTo(afterBuilt1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordTip(ctx, id, 1, tipFor(id, 1, 0, 10_000))
		}, ErrIllegalTransition, ""},
		{"tip for another attempt", upTo(afterSigned1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordTip(ctx, id, 2, tipFor(id, 2, 0, 10_000))
		}, ErrAttemptNotOpen, ""},
		{"tip after expiry", upTo(afterExpired1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordTip(ctx, id, 1, tipFor(id, 1, 0, 10_000))
		}, ErrAttemptNotOpen, ""},
		{"tip for the expired attempt once the next is open", upTo(afterAttempt2), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordTip(ctx, id, 1, tipFor(id, 1, 0, 10_000))
		}, ErrAttemptNotOpen, ""},
		{"tip after landing", upTo(afterLanded2), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordTip(ctx, id, 2, tipFor(id, 2, 0, 10_000))
		}, ErrAttemptNotOpen, ""},
		{"tip of an unknown action", nil, func(ctx context.Context, j *Journal, id string) error {
			return j.RecordTip(ctx, id, 1, tipFor(id, 1, 0, 10_000))
		}, ErrNotFound, ""},
		{"tip without signature", upTo(afterSigned1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordTip(ctx, id, 1, Tip{Blockhash: "bh", Account: "acct", Lamports: 1})
		}, ErrInvalid, ""},
		{"tip without blockhash", upTo(afterSigned1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordTip(ctx, id, 1, Tip{Signature: "t", Account: "acct", Lamports: 1})
		}, ErrInvalid, ""},
		{"tip without account", upTo(afterSigned1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordTip(ctx, id, 1, Tip{Signature: "t", Blockhash: "bh", Lamports: 1})
		}, ErrInvalid, ""},
		{"tip of zero lamports", upTo(afterSigned1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordTip(ctx, id, 1, Tip{Signature: "t", Blockhash: "bh", Account: "acct"})
		}, ErrInvalid, ""},
		{"tip beyond int64", upTo(afterSigned1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordTip(ctx, id, 1, Tip{Signature: "t", Blockhash: "bh", Account: "acct", Lamports: 1 << 63})
		}, ErrInvalid, ""},
		{"tip reusing the attempt's signature", upTo(afterSigned1), func(ctx context.Context, j *Journal, id string) error {
			tip := tipFor(id, 1, 0, 10_000)
			tip.Signature = signedFor(id, 1, 3)[2].Signature
			return j.RecordTip(ctx, id, 1, tip)
		}, ErrInvalid, ""},
		{"tip journaled twice", slices.Concat(upTo(afterSigned1), []pathStep{stepTip(1, 0, 10_000, StateSigned)}), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordTip(ctx, id, 1, tipFor(id, 1, 0, 10_000))
		}, ErrInvalid, ""},
		{"tip while signed", upTo(afterSigned1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordTip(ctx, id, 1, tipFor(id, 1, 0, 10_000))
		}, nil, StateSigned},
		{"tip while submitted", upTo(afterSubmitted1), func(ctx context.Context, j *Journal, id string) error {
			return j.RecordTip(ctx, id, 1, tipFor(id, 1, 0, 10_000))
		}, nil, StateSubmitted},
		{"expire after built, unsigned", upTo(afterBuilt1), func(ctx context.Context, j *Journal, id string) error {
			return j.Settle(ctx, id, 1, Outcome{State: StateExpired, Detail: "never signed"})
		}, nil, StateExpired},
		{"land without submit record", upTo(afterSigned1), func(ctx context.Context, j *Journal, id string) error {
			return j.Settle(ctx, id, 1, Outcome{State: StateLanded, FeeLamports: 5000})
		}, nil, StateLanded},
		{"give up after expiry", upTo(afterExpired1), func(ctx context.Context, j *Journal, id string) error {
			return j.Finish(ctx, id, Outcome{State: StateFailed, Rule: "max-attempts"})
		}, nil, StateFailed},
		{"fail the build", upTo(afterAttempt1), func(ctx context.Context, j *Journal, id string) error {
			return j.Settle(ctx, id, 1, Outcome{State: StateFailed, Rule: "api-400"})
		}, nil, StateFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			j := openMemory(t, newClock())
			const id = "act-1"
			if err := runSteps(ctx, j, id, tt.setup); err != nil {
				t.Fatalf("setup: %v", err)
			}
			before, _ := j.Get(ctx, id)
			err := tt.call(ctx, j, id)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			after, _ := j.Get(ctx, id)
			if tt.wantErr != nil && !reflect.DeepEqual(before, after) {
				t.Fatalf("refused call changed the action:\nbefore %+v\n after %+v", before, after)
			}
			if tt.wantErr == nil && after.State != tt.wantState {
				t.Fatalf("state = %s, want %s", after.State, tt.wantState)
			}
		})
	}
}

func TestTransitionErrorNamesStates(t *testing.T) {
	ctx := t.Context()
	j := openMemory(t, newClock())
	if err := runSteps(ctx, j, "a", upTo(afterBuilt1)); err != nil {
		t.Fatal(err)
	}
	err := j.RecordSubmitted(ctx, "a", 1)
	te, ok := errors.AsType[*TransitionError](err)
	if !ok || te.ID != "a" || te.From != StateBuilt || te.To != StateSubmitted {
		t.Fatalf("error = %v (%#v), want a TransitionError a built→submitted", err, te)
	}
}

func TestSignatureIsUniqueAcrossActions(t *testing.T) {
	ctx := t.Context()
	j := openMemory(t, newClock())
	for _, id := range []string{"a", "b"} {
		if err := runSteps(ctx, j, id, upTo(afterBuilt1)); err != nil {
			t.Fatal(err)
		}
	}
	sig := []SignedTx{{Signature: "same-sig", Blockhash: "bh"}}
	if err := j.RecordSigned(ctx, "a", 1, sig); err != nil {
		t.Fatal(err)
	}
	if err := j.RecordSigned(ctx, "b", 1, sig); err == nil {
		t.Fatal("a signature was journaled for two actions")
	}
	b, err := j.Get(ctx, "b")
	if err != nil || b.State != StateBuilt || len(b.Attempts[0].Signatures) != 0 {
		t.Fatalf("after the refused signature b = %+v, %v; want built without signatures", b, err)
	}
}

func TestAttemptRecordsEveryStep(t *testing.T) {
	ctx := t.Context()
	j := openMemory(t, newClock())
	if err := runSteps(ctx, j, "a", upTo(afterLanded2)); err != nil {
		t.Fatal(err)
	}
	a, err := j.Get(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if a.State != StateLanded || a.AttemptCount != 2 || a.SettledAt.IsZero() || a.Detail != "slot 42" {
		t.Fatalf("action = %+v, want landed after 2 attempts with detail", a)
	}
	first, second := a.Attempts[0], a.Attempts[1]
	if first.Outcome != StateExpired || first.IdempotencyKey != "a-1" || first.SettledAt.IsZero() {
		t.Errorf("attempt 1 = %+v, want expired with key a-1", first)
	}
	if second.Outcome != StateLanded || second.IdempotencyKey != "a-2" || second.Mode != ModeBundle ||
		second.FeeLamports != 15_000 || second.TipLamports != 10_000 ||
		!reflect.DeepEqual(second.Transactions, buildFor(2).Transactions) {
		t.Errorf("attempt 2 = %+v, want landed bundle with fee 15000 tip 10000", second)
	}
	steps := []struct {
		name string
		at   int64
	}{
		{"created", second.CreatedAt.UnixNano()}, {"built", second.BuiltAt.UnixNano()},
		{"signed", second.SignedAt.UnixNano()}, {"submitted", second.SubmittedAt.UnixNano()},
		{"settled", second.SettledAt.UnixNano()},
	}
	for i := 1; i < len(steps); i++ {
		if steps[i].at <= steps[i-1].at {
			t.Errorf("attempt 2 %s at %d is not after %s at %d", steps[i].name, steps[i].at, steps[i-1].name, steps[i-1].at)
		}
	}
	if _, open := a.OpenAttempt(); open {
		t.Error("a landed action reports an open attempt")
	}
}

// TestRecordCheckOnlyOnALandedAction: the check after a landing sets a
// landed action's detail and nothing else; any other action is refused.
func TestRecordCheckOnlyOnALandedAction(t *testing.T) {
	j := openMemory(t, newClock())
	ctx := t.Context()
	if err := runSteps(ctx, j, "landed", scenarios[0].steps); err != nil {
		t.Fatal(err)
	}
	if err := j.RecordCheck(ctx, "landed", "health 0.138 → 0.301"); err != nil {
		t.Fatalf("RecordCheck of a landed action: %v", err)
	}
	if a, err := j.Get(ctx, "landed"); err != nil || a.State != StateLanded || a.Detail != "health 0.138 → 0.301" {
		t.Errorf("after RecordCheck: %s %q, %v", a.State, a.Detail, err)
	}
	if err := runSteps(ctx, j, "open", upTo(afterSubmitted1)); err != nil {
		t.Fatal(err)
	}
	if err := j.RecordCheck(ctx, "open", "x"); !errors.Is(err, ErrConflict) {
		t.Errorf("RecordCheck of a submitted action = %v, want ErrConflict", err)
	}
}
