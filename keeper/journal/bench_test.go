package journal

import (
	"context"
	"strconv"
	"testing"
)

// BenchmarkActionPath measures one action from Begin to a landed Settle on
// a durable file database (WAL, synchronous=FULL): six committed writes.
func BenchmarkActionPath(b *testing.B) {
	ctx := context.Background()
	j, err := Open(ctx, tempDSN(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { j.Close() })
	steps := []pathStep{
		stepBegin, stepAttempt(1, StatePlanned), stepBuilt(1), stepSigned(1), stepSubmitted(1),
		stepSettle(1, Outcome{State: StateLanded, FeeLamports: 5000, TipLamports: 10_000}),
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := runSteps(ctx, j, "bench-"+strconv.Itoa(i), steps); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkPending measures startup recovery reads over 100 in-flight
// actions among 1000 settled ones.
func BenchmarkPending(b *testing.B) {
	ctx := context.Background()
	j, err := Open(ctx, tempDSN(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { j.Close() })
	for i := range 1100 {
		steps := upTo(afterSubmitted1)
		if i >= 100 {
			steps = scenarios[0].steps
		}
		if err := runSteps(ctx, j, "p"+strconv.Itoa(i), steps); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		acts, err := j.Pending(ctx)
		if err != nil || len(acts) != 100 {
			b.Fatalf("Pending = %d actions, %v", len(acts), err)
		}
	}
}
