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

// BenchmarkRead reads 100 dex-a positions spread over 10 pools from an
// in-memory fetcher: PDA derivation plus decoding, no network.
func BenchmarkRead(b *testing.B) {
	d := testDex(b, DexA)
	accounts := map[solana.PublicKey][]byte{}
	var reqs []PositionRequest
	for i := range 100 {
		pool := testKey(fmt.Sprintf("pool %d", i%10))
		accounts[pool] = d.Layout().EncodePool(samplePoolA())
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
		if err != nil || states[99].Err != nil {
			b.Fatal(err, states[99].Err)
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
