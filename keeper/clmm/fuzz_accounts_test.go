package clmm

import "testing"

// FuzzDecodeAccounts feeds arbitrary bytes to both layouts' pool and position decoders: nothing
// may panic, and whatever decodes encodes back to an account that decodes to the same value.
func FuzzDecodeAccounts(f *testing.F) {
	for _, l := range []Layout{LayoutA(), LayoutB()} {
		f.Add(make([]byte, l.PoolSize()))
		f.Add(make([]byte, l.PositionSize()))
		f.Add(l.EncodePool(Pool{TickSpacing: 10, Liquidity: U128{Lo: 5}}))
		f.Add(l.EncodePosition(Position{Range: Range{Lower: -20, Upper: 20}, Liquidity: U128{Lo: 7}}))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, l := range []Layout{LayoutA(), LayoutB()} {
			if p, err := l.DecodePool(data); err == nil {
				if again, err := l.DecodePool(l.EncodePool(p)); err != nil || again != p {
					t.Fatalf("pool does not survive encode and decode: %v", err)
				}
			}
			if p, err := l.DecodePosition(data); err == nil {
				if again, err := l.DecodePosition(l.EncodePosition(p)); err != nil || again != p {
					t.Fatalf("position does not survive encode and decode: %v", err)
				}
			}
		}
	})
}
