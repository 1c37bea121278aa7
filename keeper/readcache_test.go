package keeper

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestReadCacheServesTTLAfterTheReadCompleted(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
	c := newReadCache(time.Second, clk.now)
	reads := 0
	slow := func(context.Context) (int, error) {
		reads++
		clk.add(3 * time.Second) // a walk of many pages outlasts the ttl
		return reads, nil
	}
	if v, err := cached(t.Context(), c, "loans", slow); v != 1 || err != nil {
		t.Fatalf("first read: %d, %v", v, err)
	}
	clk.add(900 * time.Millisecond)
	if v, _ := cached(t.Context(), c, "loans", slow); v != 1 {
		t.Errorf("0.9 s after a 3 s read completed: read again (%d), want it served", v)
	}
	clk.add(200 * time.Millisecond)
	if v, _ := cached(t.Context(), c, "loans", slow); v != 2 {
		t.Errorf("1.1 s after the read completed: %d, want a fresh read", v)
	}
	c.forget()
	if v, _ := cached(t.Context(), c, "loans", slow); v != 3 {
		t.Errorf("after forget: %d, want a fresh read", v)
	}
}

func TestReadCacheSharesAReadUnderWay(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
	c := newReadCache(time.Second, clk.now)
	started, release := make(chan struct{}), make(chan struct{})
	var reads int
	read := func(context.Context) (int, error) {
		reads++
		close(started)
		<-release
		return 7, nil
	}
	first := make(chan int)
	go func() {
		v, _ := cached(context.Background(), c, "k", read)
		first <- v
	}()
	<-started
	clk.add(5 * time.Second) // however long it takes, waiters share it
	second := make(chan int)
	go func() {
		v, _ := cached(context.Background(), c, "k", read)
		second <- v
	}()
	close(release)
	if a, b := <-first, <-second; a != 7 || b != 7 || reads != 1 {
		t.Errorf("got %d and %d from %d reads, want 7 twice from one", a, b, reads)
	}
}

func TestReadCacheDropsFailedReads(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
	c := newReadCache(time.Second, clk.now)
	calls := 0
	read := func(context.Context) (int, error) {
		calls++
		if calls == 1 {
			return 0, errors.New("503")
		}
		return calls, nil
	}
	if _, err := cached(t.Context(), c, "k", read); err == nil {
		t.Fatal("the failed read was not reported")
	}
	if v, err := cached(t.Context(), c, "k", read); err != nil || v != 2 {
		t.Errorf("after a failed read: %d, %v; want a new read", v, err)
	}
}

func TestReadCacheDropsAnEntryPastItsTTL(t *testing.T) {
	c := newReadCache(20*time.Millisecond, time.Now)
	if _, err := cached(t.Context(), c, "loans", func(context.Context) (int, error) { return 1, nil }); err != nil {
		t.Fatal(err)
	}
	// Not a timing assertion: the entry must go, however late the timer fires.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		c.mu.Lock()
		n := len(c.entries)
		c.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the entry is still held 10 s after its 20 ms ttl")
		}
	}
}

func TestReadCacheKeepsAnEntryWhileItsClockStands(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
	c := newReadCache(time.Millisecond, clk.now)
	reads := 0
	read := func(context.Context) (int, error) { reads++; return reads, nil }
	if v, _ := cached(t.Context(), c, "loans", read); v != 1 {
		t.Fatalf("first read: %d", v)
	}
	time.Sleep(20 * time.Millisecond) // the expiry timer has fired; the cache's clock has not moved
	if v, _ := cached(t.Context(), c, "loans", read); v != 1 {
		t.Errorf("read again (%d) though the cache's clock says the entry is fresh", v)
	}
}
