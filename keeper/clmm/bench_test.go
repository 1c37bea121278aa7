package clmm

import (
	"context"
	"fmt"
	"testing"

	"github.com/gagliardetto/solana-go"
)

func BenchmarkDecodePool(b *testing.B) {
	for _, l := range []Layout{LayoutA(), LayoutB()} {
		pool := samplePoolA()
		if l.Name() == DexB {
			pool = samplePoolB()
		}
		data := l.EncodePool(pool)
		b.Run(l.Name(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := l.DecodePool(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodePosition(b *testing.B) {
	for _, l := range []Layout{LayoutA(), LayoutB()} {
		data := l.EncodePosition(samplePosition(testKey("pool"), testKey("mint"), -120, 120))
		b.Run(l.Name(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := l.DecodePosition(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRead reads 100 dex-a positions spread over 10 pools, with their
// tick arrays, from an in-memory fetcher: PDA derivation, decoding and the
// fees owed, no network. The reader knows the tick arrays after the first
// read, so each iteration is one fetch.
func BenchmarkRead(b *testing.B) {
	d := testDex(b, DexA)
	accounts := map[solana.PublicKey][]byte{}
	var reqs []PositionRequest
	for i := range 100 {
		pool := testKey(fmt.Sprintf("pool %d", i%10))
		accounts[pool] = d.Layout().EncodePool(samplePoolA())
		for _, start := range []int32{-3600, 0} {
			addr, err := d.TickArrayAddress(pool, start)
			if err != nil {
				b.Fatal(err)
			}
			ticks := sampleTicks(60, start, 60, 58, 59, 0, 1, 2)
			accounts[addr] = d.Layout().EncodeTickArray(TickArray{Pool: pool, Start: start, Ticks: ticks})
		}
		mint := testKey(fmt.Sprintf("mint %d", i))
		addr, _, err := d.PositionAddress(mint)
		if err != nil {
			b.Fatal(err)
		}
		accounts[addr] = d.Layout().EncodePosition(samplePosition(pool, mint, -120, 120))
		reqs = append(reqs, PositionRequest{Dex: d, Pool: pool, PositionMint: mint})
	}
	r := NewReader(mapFetcher(accounts))
	b.ReportAllocs()
	for b.Loop() {
		states, err := r.Read(b.Context(), reqs)
		if err != nil || states[99].Err != nil || states[99].OwedErr != nil {
			b.Fatal(err, states[99].Err, states[99].OwedErr)
		}
	}
}

type mapFetcher map[solana.PublicKey][]byte

func (m mapFetcher) MultipleAccounts(_ context.Context, keys []solana.PublicKey) ([][]byte, error) {
	out := make([][]byte, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out, nil
}

func BenchmarkCenteredRange(b *testing.B) {
	for b.Loop() {
		if _, err := CenteredRange(-12345, 64, 1000); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPositionAddress(b *testing.B) {
	d := testDex(b, DexA)
	mint := testKey("mint")
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := d.PositionAddress(mint); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeTickArray(b *testing.B) {
	pool := testKey("pool")
	for _, tc := range []struct {
		name string
		l    Layout
		a    TickArray
	}{
		{"dex-a", LayoutA(), TickArray{Pool: pool, Start: 0, Ticks: sampleTicks(60, 0, 1, 0, 30, 59)}},
		{"dex-b fixed", LayoutB(), TickArray{Pool: pool, Start: 0, Ticks: sampleTicks(88, 0, 1, 0, 30, 87)}},
		{"dex-b dynamic", LayoutB(), TickArray{Pool: pool, Start: 0, Dynamic: true, Ticks: sampleTicks(88, 0, 1, 0, 30, 87)}},
	} {
		data := tc.l.EncodeTickArray(tc.a)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := tc.l.DecodeTickArray(data, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkOwed(b *testing.B) {
	pool, lo, up := rangePool(q64(120), q64(250))
	pool.Rewards[0] = PoolReward{Mint: testKey("r"), GrowthGlobal: q64(7)}
	pos := Position{Liquidity: U128{Hi: 1, Lo: 12345}, FeeGrowthInside0: neg(q64(3)), FeeGrowthInside1: q64(100)}
	for _, l := range []Layout{LayoutA(), LayoutB()} {
		b.Run(l.Name(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := l.Owed(pool, pos, lo, up); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
