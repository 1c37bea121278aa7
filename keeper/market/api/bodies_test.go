package api

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"
)

// TestBodiesOneLargeAtATime: while one call holds a body beyond the small allowance, another large
// body waits (a small one does not), and goes on once the first is released.
func TestBodiesOneLargeAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBodies()
		large := func() *strings.Reader { return strings.NewReader(strings.Repeat("x", 3*smallBodyBytes)) }
		first, tooLarge, release, err := b.read(t.Context(), large(), -1, 32<<20)
		if err != nil || tooLarge || len(first) != 3*smallBodyBytes {
			t.Fatalf("first large body: %d bytes, too large %v, err %v", len(first), tooLarge, err)
		}
		done := make(chan int)
		go func() {
			data, _, rel, err := b.read(t.Context(), large(), -1, 32<<20)
			if err != nil {
				t.Errorf("second large body: %v", err)
			}
			rel()
			done <- len(data)
		}()
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("a second large body was read while the first was held")
		default:
		}
		small, _, relSmall, err := b.read(t.Context(), strings.NewReader(`{"ok":true}`), -1, 32<<20)
		relSmall()
		if err != nil || string(small) != `{"ok":true}` {
			t.Fatalf("small body while a large one is held: %q, %v", small, err)
		}
		release()
		if n := <-done; n != 3*smallBodyBytes {
			t.Errorf("second large body: %d bytes after the first was released", n)
		}
	})
}

// TestBodiesLimit: a body longer than the limit is reported with its start only (for an excerpt),
// whether the limit is above or below the small allowance and whether its size was announced; the
// slot is released with it. A body of exactly the limit is read whole.
func TestBodiesLimit(t *testing.T) {
	b := newBodies()
	for _, limit := range []int64{100, 2 * smallBodyBytes} {
		for _, size := range []int64{-1, limit + 10} {
			data, tooLarge, release, err := b.read(t.Context(), bytes.NewReader(make([]byte, limit+10)), size, limit)
			release()
			if want := min(limit, tooLargeHead); err != nil || !tooLarge || int64(len(data)) != want {
				t.Errorf("limit %d, size %d: %d bytes, too large %v, err %v; want the first %d bytes, too large", limit, size, len(data), tooLarge, err, want)
			}
		}
		for _, size := range []int64{-1, limit} {
			data, tooLarge, release, err := b.read(t.Context(), bytes.NewReader(make([]byte, limit)), size, limit)
			release()
			if err != nil || tooLarge || int64(len(data)) != limit {
				t.Errorf("body of exactly %d, size %d: %d bytes, too large %v, err %v", limit, size, len(data), tooLarge, err)
			}
		}
	}
	select {
	case b.large <- struct{}{}:
	default:
		t.Error("the large-body slot is still held")
	}
}

// TestExcerptOfHugeBody: the excerpt of a body far longer than what it scans is taken from its
// head only, and a secret that straddles the cut leaves no part of itself in it, even where
// runs of space before it collapse into the excerpt.
func TestExcerptOfHugeBody(t *testing.T) {
	secret := "s3cr3t-api-key-0123456789"
	r := newRedactor(secret, "http://127.0.0.1:7070/v1")
	body := append(bytes.Repeat([]byte(" "), excerptScan-10), secret...)
	body = append(body, bytes.Repeat([]byte("y"), 1<<20)...)
	got := r.excerpt(body)
	for i := 4; i <= len(secret); i++ {
		if strings.Contains(got, secret[:i]) {
			t.Fatalf("excerpt %q holds %q, the start of the secret", got, secret[:i])
		}
	}
}
