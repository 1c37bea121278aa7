package wait

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

func TestFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if !For(t.Context(), 3*time.Second) || time.Since(start) != 3*time.Second {
			t.Errorf("a full wait reported false or took %v", time.Since(start))
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start = time.Now()
		if For(ctx, time.Minute) || time.Since(start) != time.Second {
			t.Errorf("a wait cut by its context reported true or took %v", time.Since(start))
		}
		if For(ctx, 0) {
			t.Error("a zero wait on an ended context reported true")
		}
		if !For(t.Context(), -time.Second) {
			t.Error("a negative wait on a live context reported false")
		}
	})
}
