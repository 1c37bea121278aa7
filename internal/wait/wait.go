// Package wait pauses for a duration unless a context ends first.
package wait

import (
	"context"
	"time"
)

// For waits d or until ctx ends, reporting whether the full wait passed. A
// d of zero or less does not wait and reports whether ctx is still live.
func For(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
