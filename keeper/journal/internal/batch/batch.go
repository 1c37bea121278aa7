// Package batch runs work that arrives while earlier work is running as one
// batch: a group commit. The caller that finds the queue idle runs the
// batch, its own work among it, and hands the queue on to the first caller
// that arrived meanwhile; no goroutine of the package's own runs anything.
package batch

import (
	"errors"
	"fmt"
	"sync"
)

// ErrPanicked is the result of the items of a batch whose run panicked.
var ErrPanicked = errors.New("batch: the batch's run panicked")

// Queue gathers items and runs them in batches, one batch at a time. The
// zero value is ready to use; a Queue must not be copied after first use.
type Queue[T any] struct {
	mu      sync.Mutex
	waiting []*entry[T] // guarded by mu
	running bool        // guarded by mu; a caller is running a batch
	// Waiting, when set (by tests), is called with the number of items
	// waiting each time one queues behind a running batch.
	Waiting func(n int)
}

// entry is one caller's item waiting in a Queue.
type entry[T any] struct {
	item T
	// turn receives the item's result, or the lead.
	turn chan turn
}

// turn is what a waiting caller is told: its item's result, or that it
// now runs the next batch.
type turn struct {
	lead bool
	err  error
}

// Do queues item and returns its result once a batch that holds it has
// run. run gets the batch's items in arrival order and returns one result
// for each; it is called by one caller at a time, with every item that
// queued while the previous batch ran. An item alone (nothing else running)
// is a batch of one, run at once by its own caller.
func (q *Queue[T]) Do(item T, run func(items []T) []error) error {
	e := &entry[T]{item: item, turn: make(chan turn, 1)}
	q.mu.Lock()
	q.waiting = append(q.waiting, e)
	if q.running {
		if q.Waiting != nil {
			q.Waiting(len(q.waiting))
		}
		q.mu.Unlock()
		if t := <-e.turn; !t.lead {
			return t.err
		}
	} else {
		q.running = true
		q.mu.Unlock()
	}
	return q.lead(e, run)
}

// lead runs everything waiting as one batch, e among it, tells every other
// caller of the batch its result, and hands the queue to the first caller
// that arrived meanwhile, if any. If run panics, or returns a number of
// results other than the batch's items, the batch's other callers get
// ErrPanicked, the queue is handed on, and the panic goes on in e's caller.
func (q *Queue[T]) lead(e *entry[T], run func(items []T) []error) error {
	q.mu.Lock()
	batch := q.waiting
	q.waiting = nil
	q.mu.Unlock()
	items := make([]T, len(batch))
	for i, b := range batch {
		items[i] = b.item
	}
	done := false
	defer func() {
		if !done {
			for _, b := range batch {
				if b != e {
					b.turn <- turn{err: ErrPanicked}
				}
			}
			q.handOn()
		}
	}()
	errs := run(items)
	if len(errs) != len(items) {
		panic(fmt.Sprintf("batch: run returned %d results for %d items", len(errs), len(items)))
	}
	done = true
	var own error
	for i, b := range batch {
		if b == e {
			own = errs[i]
			continue
		}
		b.turn <- turn{err: errs[i]}
	}
	q.handOn()
	return own
}

// handOn gives the lead to the first caller waiting, or marks the queue
// idle.
func (q *Queue[T]) handOn() {
	q.mu.Lock()
	if len(q.waiting) == 0 {
		q.running = false
		q.mu.Unlock()
		return
	}
	next := q.waiting[0]
	q.mu.Unlock()
	next.turn <- turn{lead: true}
}
