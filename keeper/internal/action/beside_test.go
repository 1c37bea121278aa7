package action

import (
	"errors"
	"testing"
)

// TestBesideJoin checks that joining a write beside the path returns its error once, and
// re-panics in the joiner with the value of a panic that stopped the write, so that the run's
// recovery sees it.
func TestBesideJoin(t *testing.T) {
	var b beside
	if err := b.join(); err != nil {
		t.Errorf("joining no write returned %v", err)
	}
	errDisk := errors.New("disk full")
	b.start(func() error { return errDisk })
	if err := b.join(); !errors.Is(err, errDisk) {
		t.Errorf("join = %v, want %v", err, errDisk)
	}
	if err := b.join(); err != nil {
		t.Errorf("a second join returned %v, want nothing: the write was joined", err)
	}
	type crash struct{ step string }
	b.start(func() error { panic(crash{"journal.RecordBuilt"}) })
	defer func() {
		if r := recover(); r != (crash{"journal.RecordBuilt"}) {
			t.Errorf("join panicked with %v, want the write's panic", r)
		}
	}()
	_ = b.join()
	t.Error("join of a write that panicked returned")
}
