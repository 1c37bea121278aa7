package api

import (
	"bytes"
	"context"
	"fmt"
	"io"
)

// smallBodyBytes is how much of a response body any number of calls may hold at once without
// waiting: every ordinary answer of the market (a page of 100 loans is about 300 KB) fits in it.
const smallBodyBytes = 1 << 20

// tooLargeHead is how much of a body announced as too large is read, for the error's excerpt.
const tooLargeHead = 4 << 10

// bodies bounds the response bytes a Client holds in memory across concurrent calls. Each call
// reads the first smallBodyBytes of its body freely; a longer body is read on, and then decoded,
// only while its call holds the one large-body slot. So however many policies read at once, and
// however large the bodies a broken or hostile server sends, at most one body beyond
// smallBodyBytes (itself capped by Options.MaxResponseBytes) is in memory at a time.
type bodies struct {
	large chan struct{} // a one-slot semaphore
}

// newBodies returns an empty budget.
func newBodies() *bodies { return &bodies{large: make(chan struct{}, 1)} }

// read reads at most limit bytes of r, a body of length size (-1 when unknown). tooLarge reports a
// body longer than limit: data then holds its start only, for an error's excerpt. The caller must
// call release once it is done with data (after decoding it); release is never nil. A body of known
// size is read into one allocation of that size; one of unknown size in chunks joined once.
func (b *bodies) read(ctx context.Context, r io.Reader, size, limit int64) (data []byte, tooLarge bool, release func(), err error) {
	nop := func() {}
	if size > limit {
		data, err := io.ReadAll(io.LimitReader(r, min(limit, tooLargeHead)))
		return data, err == nil, nop, err
	}
	small := min(limit, smallBodyBytes)
	if size <= small {
		if data, err = readUpTo(r, small, size); err != nil || int64(len(data)) <= small {
			return data, false, nop, err
		}
		if small == limit {
			return excerptOf(data, limit), true, nop, nil
		}
	}
	if err := b.acquire(ctx); err != nil {
		return nil, false, nop, err
	}
	if size > small {
		data, err = readUpTo(r, size, size)
	} else {
		data, tooLarge, err = readChunked(data, r, limit)
	}
	if err != nil || tooLarge {
		b.release()
		return excerptOf(data, limit), tooLarge, nop, err
	}
	return data, false, b.release, nil
}

// excerptOf returns the start of a body (at most limit bytes) kept for an error's excerpt.
func excerptOf(data []byte, limit int64) []byte {
	return bytes.Clone(data[:min(int64(len(data)), limit, tooLargeHead)])
}

// acquire takes the large-body slot, waiting at most until ctx ends.
func (b *bodies) acquire(ctx context.Context) error {
	select {
	case b.large <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting to read a large body: %w", ctx.Err())
	}
}

// release gives the large-body slot back.
func (b *bodies) release() { <-b.large }

// readUpTo reads at most n+1 bytes of r into one buffer sized for a body of size bytes (-1:
// unknown).
func readUpTo(r io.Reader, n, size int64) ([]byte, error) {
	capacity := n + 1
	if size >= 0 {
		capacity = min(capacity, size+1)
	}
	buf := bytes.NewBuffer(make([]byte, 0, capacity))
	_, err := buf.ReadFrom(io.LimitReader(r, n+1))
	return buf.Bytes(), err
}

// readChunked reads r on after head until limit+1 bytes in all, into chunks of smallBodyBytes that
// are joined once at the end: a body within limit is held twice only for that moment, and one over
// limit is held once while it is read, then dropped but for head.
func readChunked(head []byte, r io.Reader, limit int64) (data []byte, tooLarge bool, err error) {
	chunks, total := [][]byte{head}, int64(len(head))
	for total <= limit {
		c := make([]byte, min(smallBodyBytes, limit+1-total))
		n, err := io.ReadFull(r, c)
		chunks, total = append(chunks, c[:n]), total+int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return head, false, err
		}
	}
	if total > limit {
		return head, true, nil
	}
	return bytes.Join(chunks, nil), false, nil
}
