package journal

import (
	"reflect"
	"testing"
)

// TestStartJournalsTheIntentAndItsFirstAttempt checks that Start returns
// what Get reads back, attempt 1 open under its idempotency key, in one
// durable commit.
func TestStartJournalsTheIntentAndItsFirstAttempt(t *testing.T) {
	ctx := t.Context()
	j := openDSN(t, tempDSN(t), newClock())
	levels := recordLevels(j)
	act, att, created, err := j.Start(ctx, testIntent("a"))
	if err != nil || !created {
		t.Fatalf("Start = created %v, %v; want a new action", created, err)
	}
	if !reflect.DeepEqual(*levels, []int{syncFull}) {
		t.Errorf("Start committed at synchronous levels %v, want one commit at %d", *levels, syncFull)
	}
	if att.Number != 1 || att.IdempotencyKey != idempotencyKey("a", 1) || att.ActionID != "a" {
		t.Errorf("attempt = %+v, want attempt 1 of a with its key", att)
	}
	got, err := j.Get(ctx, "a")
	if err != nil || !reflect.DeepEqual(got, act) {
		t.Fatalf("Get = %+v, %v\nStart returned %+v", got, err, act)
	}
	if n, open := got.OpenAttempt(); !open || n.Number != 1 {
		t.Errorf("open attempt = %+v, %v; want attempt 1 open", n, open)
	}
	if err := runSteps(ctx, j, "a", []pathStep{stepBuilt(1), stepSigned(1)}); err != nil {
		t.Fatalf("the path after Start: %v", err)
	}
}

// TestStartFindsAJournaledAction checks that Start writes nothing for an
// ID the journal holds and returns the action as it is, without an
// attempt.
func TestStartFindsAJournaledAction(t *testing.T) {
	ctx := t.Context()
	j := openMemory(t, newClock())
	mustBegin(t, j, testIntent("a"))
	if err := runSteps(ctx, j, "a", upTo(afterBuilt1)[1:]); err != nil {
		t.Fatal(err)
	}
	before, err := j.Get(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	again := testIntent("a")
	again.Reason = "a different reason"
	act, att, created, err := j.Start(ctx, again)
	if err != nil || created {
		t.Fatalf("Start = created %v, %v; want the existing action", created, err)
	}
	if !reflect.DeepEqual(att, Attempt{}) || !reflect.DeepEqual(act, before) {
		t.Errorf("Start returned %+v and attempt %+v, want %+v and none", act, att, before)
	}
	if _, _, _, err := j.Start(ctx, Intent{ID: "b"}); err == nil {
		t.Error("Start took an intent without policy or kind")
	}
}
