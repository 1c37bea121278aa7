package journal

import (
	"context"
	"encoding/base64"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// benchStores runs fn on a durable SQLite file (WAL, synchronous=FULL)
// and, when postgresEnv names a server, on a PostgreSQL journal this
// process leads (every write then also checks the fencing token).
func benchStores(b *testing.B, fn func(b *testing.B, j *Journal)) {
	b.Run("store=sqlite", func(b *testing.B) {
		fn(b, openBench(b, tempDSN(b)))
	})
	b.Run("store=postgres", func(b *testing.B) {
		if os.Getenv(postgresEnv) == "" {
			b.Skip(postgresEnv + " is not set")
		}
		j := openBench(b, newPostgresDatabase(b))
		lead(b, j, "bench")
		fn(b, j)
	})
}

// openBench opens dsn with the real clock and closes it after b.
func openBench(b *testing.B, dsn string) *Journal {
	b.Helper()
	j, err := Open(context.Background(), dsn, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { j.Close() })
	return j
}

// landedPath is one action as the executor journals it, from Start to a
// landed Settle: five writes, two of them durable commits. Its built and
// signed transactions are as large as a transaction can be, so that the
// benchmarks write the pages a real action writes.
var landedPath = []pathStep{
	stepStart, stepBuiltFull(1), stepSignedFull(1), stepSubmitted(1),
	stepSettle(1, Outcome{State: StateLanded, FeeLamports: 5000, TipLamports: 10_000}),
}

// fullTx is a base64 transaction of Solana's packet limit, 1,232 bytes.
var fullTx = strings.Repeat("A", base64.StdEncoding.EncodedLen(1232))

// stepBuiltFull records the build of attempt n, its transactions fullTx.
func stepBuiltFull(n int) pathStep {
	return pathStep{"built", StateBuilt, func(ctx context.Context, j *Journal, id string) error {
		b := buildFor(n)
		for i := range b.Transactions {
			b.Transactions[i] = fullTx
		}
		return j.RecordBuilt(ctx, id, n, b)
	}}
}

// stepSignedFull records the signatures of attempt n, its signed
// transactions fullTx.
func stepSignedFull(n int) pathStep {
	return pathStep{"signed", StateSigned, func(ctx context.Context, j *Journal, id string) error {
		sigs := signedFor(id, n, 3)
		for i := range sigs {
			sigs[i].Transaction = fullTx
		}
		return j.RecordSigned(ctx, id, n, sigs)
	}}
}

// BenchmarkActionPath measures one action at a time along landedPath.
func BenchmarkActionPath(b *testing.B) {
	benchStores(b, func(b *testing.B, j *Journal) {
		ctx := context.Background()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := runSteps(ctx, j, "bench-"+strconv.Itoa(i), landedPath); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkFirstActionPath measures the first action of a journal just opened along landedPath,
// as a `keeper run --once` journals its action. The journal is opened before each timed action,
// out of the timing: on a fresh file (journal=new: Open's migrations have started the write-ahead
// log), or on the file an earlier process closed (journal=reopened: its close checkpointed and
// removed the log, so the action's first commit starts it).
func BenchmarkFirstActionPath(b *testing.B) {
	for _, c := range []struct {
		name   string
		reopen bool
	}{
		{"journal=new", false},
		{"journal=reopened", true},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			dsn := tempDSN(b)
			if c.reopen {
				openBench(b, dsn).Close()
			}
			b.ReportAllocs()
			for i := range b.N {
				b.StopTimer()
				if !c.reopen {
					dsn = tempDSN(b)
				}
				j, err := Open(ctx, dsn, Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := runSteps(ctx, j, "first-"+strconv.Itoa(i), landedPath); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := j.Close(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkActionPathConcurrent measures actions along landedPath with
// several in flight at once, as when several policies act in one tick
// (policy_concurrency, 4 by default): ns/op is the journal's time per
// action, its one connection taken in turn.
func BenchmarkActionPathConcurrent(b *testing.B) {
	for _, n := range []int{1, 4, 16} {
		b.Run("inflight="+strconv.Itoa(n), func(b *testing.B) {
			benchStores(b, func(b *testing.B, j *Journal) {
				ctx := context.Background()
				var next atomic.Int64
				b.ReportAllocs()
				b.ResetTimer()
				var wg sync.WaitGroup
				for range n {
					wg.Go(func() {
						for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
							if err := runSteps(ctx, j, "bench-"+strconv.FormatInt(i, 10), landedPath); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
			})
		})
	}
}

// BenchmarkPending measures startup recovery reads over 100 in-flight
// actions among 1000 settled ones.
func BenchmarkPending(b *testing.B) {
	benchStores(b, func(b *testing.B, j *Journal) {
		ctx := context.Background()
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
	})
}

// BenchmarkLeaseRenew measures one renewal of the leader's lease, what a
// leader pays every third of journal.lease.
func BenchmarkLeaseRenew(b *testing.B) {
	if os.Getenv(postgresEnv) == "" {
		b.Skip(postgresEnv + " is not set")
	}
	j := openBench(b, newPostgresDatabase(b))
	l := lead(b, j, "bench")
	ctx := context.Background()
	for b.Loop() {
		if ok, err := j.Renew(ctx, l.Token, DefaultBusyTimeout); !ok || err != nil {
			b.Fatalf("Renew = %v, %v", ok, err)
		}
	}
}
