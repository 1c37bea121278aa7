package journal

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"
)

func TestBeginStoresIntent(t *testing.T) {
	ctx := t.Context()
	j := openMemory(t, newClock())
	in := testIntent("a")
	in.DryRun = true
	act, created, err := j.Begin(ctx, in)
	if err != nil || !created {
		t.Fatalf("Begin = created %v, %v; want a new action", created, err)
	}
	// Open read the clock once per migration; Begin reads it next.
	at := epoch.Add(time.Duration(len(migrations)) * time.Second)
	want := Action{Intent: in, State: StatePlanned, CreatedAt: at, UpdatedAt: at}
	if !reflect.DeepEqual(act, want) {
		t.Fatalf("Begin returned\n %+v\nwant\n %+v", act, want)
	}
	got, err := j.Get(ctx, "a")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Get = %+v, %v; want %+v", got, err, want)
	}
}

func TestBeginDedups(t *testing.T) {
	ctx := t.Context()
	j := openMemory(t, newClock())
	first := mustBegin(t, j, testIntent("a"))
	if err := runSteps(ctx, j, "a", upTo(afterBuilt1)[1:]); err != nil {
		t.Fatal(err)
	}
	again := testIntent("a")
	again.Reason, again.Amount = "a different reason", 99
	got, created, err := j.Begin(ctx, again)
	if err != nil || created {
		t.Fatalf("second Begin = created %v, %v; want the existing action", created, err)
	}
	if got.Reason != first.Reason || got.Amount != first.Amount || got.State != StateBuilt || len(got.Attempts) != 1 {
		t.Fatalf("second Begin returned %+v, want the stored built action with its attempt", got)
	}
}

func TestBeginEmptyInputsStoredAsNull(t *testing.T) {
	j := openMemory(t, newClock())
	in := testIntent("a")
	in.Inputs = nil
	act := mustBegin(t, j, in)
	if string(act.Inputs) != "null" {
		t.Fatalf("inputs = %q, want null", act.Inputs)
	}
}

func TestBeginValidates(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Intent)
	}{
		{"no id", func(in *Intent) { in.ID = "" }},
		{"no policy", func(in *Intent) { in.Policy = "" }},
		{"no kind", func(in *Intent) { in.Kind = "" }},
		{"bad inputs", func(in *Intent) { in.Inputs = []byte(`{"ltv":`) }},
		{"amount without mint", func(in *Intent) { in.Mint = "" }},
	}
	j := openMemory(t, newClock())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := testIntent("a")
			tt.mutate(&in)
			if _, _, err := j.Begin(t.Context(), in); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Begin error = %v, want ErrInvalid", err)
			}
		})
	}
	if acts, err := j.List(t.Context(), Filter{}); err != nil || len(acts) != 0 {
		t.Fatalf("after invalid intents List = %d actions, %v; want none", len(acts), err)
	}
}

// beginRace calls Begin for id from n goroutines spread over the handles
// and returns every result.
func beginRace(t *testing.T, handles []*Journal, id string, n int) ([]Action, int) {
	t.Helper()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		acts    []Action
		created int
	)
	for i := range n {
		wg.Go(func() {
			act, isNew, err := handles[i%len(handles)].Begin(t.Context(), testIntent(id))
			if err != nil {
				t.Errorf("Begin: %v", err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			acts = append(acts, act)
			if isNew {
				created++
			}
		})
	}
	wg.Wait()
	return acts, created
}

func TestConcurrentBeginYieldsOneAction(t *testing.T) {
	dsn := tempDSN(t)
	tests := []struct {
		name    string
		handles []*Journal
	}{
		{"one handle", []*Journal{openDSN(t, dsn, newClock())}},
		{"two handles on one file", []*Journal{openDSN(t, dsn, newClock()), openDSN(t, dsn, newClock())}},
		{"memory", []*Journal{openMemory(t, newClock())}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := "race-" + tt.name
			acts, created := beginRace(t, tt.handles, id, 16)
			if created != 1 || len(acts) != 16 {
				t.Fatalf("%d of %d Begins created the action, want exactly 1", created, len(acts))
			}
			for _, a := range acts[1:] {
				if !reflect.DeepEqual(a, acts[0]) {
					t.Fatalf("Begins disagree:\n %+v\n %+v", a, acts[0])
				}
			}
			all, err := tt.handles[0].List(t.Context(), Filter{})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, a := range all {
				if a.ID == id {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%d stored actions with ID %s, want 1", n, id)
			}
		})
	}
}

func TestConcurrentPathsOnOneJournal(t *testing.T) {
	j := openDSN(t, tempDSN(t), newClock())
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if err := runSteps(t.Context(), j, fmt.Sprintf("p%d", i), scenarios[0].steps); err != nil {
				t.Errorf("action p%d: %v", i, err)
			}
		})
	}
	wg.Wait()
	acts, err := j.List(t.Context(), Filter{States: []State{StateLanded}})
	if err != nil || len(acts) != 8 {
		t.Fatalf("landed actions = %d, %v; want 8", len(acts), err)
	}
	for _, a := range acts {
		if a.AttemptCount != 2 || len(a.Attempts[1].Signatures) != 3 {
			t.Errorf("action %s = %d attempts, want 2 with 3 signatures on the last", a.ID, a.AttemptCount)
		}
	}
}

func TestCancelledWriteLeavesNothing(t *testing.T) {
	j := openMemory(t, newClock())
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := j.Begin(ctx, testIntent("a")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Begin with a cancelled context: %v, want context.Canceled", err)
	}
	if _, err := j.Get(t.Context(), "a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after a cancelled Begin: %v, want ErrNotFound", err)
	}
}
