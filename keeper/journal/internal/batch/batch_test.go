package batch

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// TestAnItemAloneRunsAtOnce checks that an item with nothing running is a
// batch of one, run by its own caller.
func TestAnItemAloneRunsAtOnce(t *testing.T) {
	var q Queue[int]
	var batches [][]int
	run := func(items []int) []error {
		batches = append(batches, slices.Clone(items))
		return []error{fmt.Errorf("item %d", items[0])}
	}
	for i := range 3 {
		if err := q.Do(i, run); err == nil || err.Error() != fmt.Sprintf("item %d", i) {
			t.Errorf("Do(%d) = %v, want its own result", i, err)
		}
	}
	if want := [][]int{{0}, {1}, {2}}; !slices.EqualFunc(batches, want, slices.Equal) {
		t.Errorf("batches %v, want %v", batches, want)
	}
}

// held runs a first item whose batch blocks until n more items wait, then
// the others, and returns every caller's result by item and the batches
// run.
type held struct {
	q       Queue[int]
	started chan struct{}
	waiting chan struct{}
	mu      sync.Mutex
	batches [][]int
	// panicOn makes the batch holding this item panic; shortOn makes it
	// return one result too few.
	panicOn, shortOn int
}

func newHeld(n int) *held {
	h := &held{started: make(chan struct{}), waiting: make(chan struct{}), panicOn: -1, shortOn: -1}
	h.q.Waiting = func(k int) {
		if k == n {
			close(h.waiting)
		}
	}
	return h
}

// run is the queue's run: it records the batch, holds the first until the
// others wait, and answers each item with an error naming it.
func (h *held) run(items []int) []error {
	h.mu.Lock()
	first := len(h.batches) == 0
	h.batches = append(h.batches, slices.Clone(items))
	h.mu.Unlock()
	if first {
		close(h.started)
		<-h.waiting
	}
	if slices.Contains(items, h.panicOn) {
		panic("run failed")
	}
	errs := make([]error, len(items))
	if slices.Contains(items, h.shortOn) {
		errs = errs[1:]
	}
	for i, it := range items[len(items)-len(errs):] {
		errs[i] = fmt.Errorf("item %d", it)
	}
	return errs
}

// do runs item 0 and, once its batch runs, items 1..n; it returns each
// item's result and whether its caller panicked.
func (h *held) do(n int) (errs []error, panicked []bool) {
	errs, panicked = make([]error, n+1), make([]bool, n+1)
	var wg sync.WaitGroup
	call := func(i int) {
		defer func() { panicked[i] = recover() != nil }()
		errs[i] = h.q.Do(i, h.run)
	}
	wg.Go(func() { call(0) })
	<-h.started
	for i := 1; i <= n; i++ {
		wg.Go(func() { call(i) })
	}
	wg.Wait()
	return errs, panicked
}

// TestItemsThatWaitRunAsOneBatch checks that the items queued while a
// batch runs are run together next, each caller getting its own result.
func TestItemsThatWaitRunAsOneBatch(t *testing.T) {
	h := newHeld(4)
	errs, _ := h.do(4)
	for i, err := range errs {
		if err == nil || err.Error() != fmt.Sprintf("item %d", i) {
			t.Errorf("item %d's caller got %v", i, err)
		}
	}
	if len(h.batches) != 2 || !slices.Equal(h.batches[0], []int{0}) {
		t.Fatalf("batches %v, want [0] then the four that waited", h.batches)
	}
	got := slices.Sorted(slices.Values(h.batches[1]))
	if !slices.Equal(got, []int{1, 2, 3, 4}) {
		t.Errorf("second batch %v, want items 1 to 4", h.batches[1])
	}
}

// TestAPanickingBatchReleasesItsCallers checks that when a batch's run
// panics, or answers with one result too few, its leader's caller panics,
// the batch's other callers get ErrPanicked, and the queue goes on.
func TestAPanickingBatchReleasesItsCallers(t *testing.T) {
	for name, set := range map[string]func(h *held){
		"panic":              func(h *held) { h.panicOn = 2 },
		"one result too few": func(h *held) { h.shortOn = 2 },
	} {
		t.Run(name, func(t *testing.T) {
			h := newHeld(3)
			set(h)
			checkReleased(t, h)
		})
	}
}

// checkReleased runs item 0 alone, then 1, 2 and 3 in a batch that fails,
// and checks who panicked and who was told ErrPanicked.
func checkReleased(t *testing.T, h *held) {
	errs, panicked := h.do(3)
	if panicked[0] || errs[0] == nil || errs[0].Error() != "item 0" {
		t.Errorf("item 0, alone in its batch, got %v (panicked %v)", errs[0], panicked[0])
	}
	// The batch of 1, 2 and 3 panicked in the caller that ran it; the
	// other two got ErrPanicked.
	var leaders, released int
	for i := 1; i <= 3; i++ {
		switch {
		case panicked[i]:
			leaders++
		case errors.Is(errs[i], ErrPanicked):
			released++
		default:
			t.Errorf("item %d: %v", i, errs[i])
		}
	}
	if leaders != 1 || released != 2 {
		t.Errorf("%d callers panicked and %d got ErrPanicked, want 1 and 2", leaders, released)
	}
	if err := h.q.Do(9, h.run); err == nil || err.Error() != "item 9" {
		t.Errorf("after the panic Do = %v, want the queue to run again", err)
	}
}
