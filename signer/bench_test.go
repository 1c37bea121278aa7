package signer

import (
	"context"
	"testing"
)

// BenchmarkDecodeGuardSign measures one realistic v0 repay (lookup table,
// compute budget, ATA create, TransferChecked, co-signed market instruction):
// decode with co-signature verification, guard, sign.
func BenchmarkDecodeGuardSign(b *testing.B) {
	s := fixtureSigner(b)
	c := corpusCase(b, "ok-repay-v0-lookup")
	sigs := toAPISigs(c.Signatures)
	bounds := toBounds(c.Bounds)
	tx, err := DecodeAPITransaction(c.Message, sigs)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("all", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tx, err := DecodeAPITransaction(c.Message, sigs)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Sign(tx, KindRepay, bounds); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeAPITransaction(c.Message, sigs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("guard", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Check(tx, KindRepay, bounds); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sign", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.sign(context.Background(), tx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
