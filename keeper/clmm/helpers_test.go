package clmm

import (
	"crypto/sha256"
	"math/big"
	"testing"

	"github.com/gagliardetto/solana-go"
)

// testKey returns a deterministic, distinct public key for a label.
func testKey(label string) solana.PublicKey {
	return solana.PublicKey(sha256.Sum256([]byte("clmm test key " + label)))
}

// testDex returns a dex whose program id is a made-up test key.
func testDex(t testing.TB, layout string) Dex {
	t.Helper()
	d, err := NewDex(layout, testKey("program "+layout))
	if err != nil {
		t.Fatalf("NewDex(%q): %v", layout, err)
	}
	return d
}

// mustBig parses a decimal integer.
func mustBig(t testing.TB, s string) *big.Int {
	t.Helper()
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("bad integer %q", s)
	}
	return v
}

// samplePoolA returns a pool with every layout A field set to a distinct
// value.
func samplePoolA() Pool {
	return Pool{
		Config: testKey("config"), Bump: 254,
		Mint0: testKey("mint0"), Mint1: testKey("mint1"),
		Vault0: testKey("vault0"), Vault1: testKey("vault1"),
		HasDecimals: true, Decimals0: 9, Decimals1: 6,
		TickSpacing: 60,
		Liquidity:   U128{Hi: 0x0102030405060708, Lo: 0x1112131415161718},
		// 2^63 as Q64.64: sqrt price 0.5, raw price 0.25.
		SqrtPriceX64: U128{Lo: 1 << 63},
		TickCurrent:  -13864,
	}
}

// samplePoolB returns a pool with every layout B field set to a distinct
// value.
func samplePoolB() Pool {
	return Pool{
		Config: testKey("config b"), Bump: 253,
		Mint0: testKey("mint a"), Mint1: testKey("mint b"),
		Vault0: testKey("vault a"), Vault1: testKey("vault b"),
		TickSpacing: 64, HasFeeRate: true, FeeRate: 3000,
		Liquidity:    U128{Hi: 0x0a0b, Lo: 0x0c0d0e0f},
		SqrtPriceX64: U128{Hi: 1},
		TickCurrent:  0,
	}
}

// samplePosition returns a position with every field set.
func samplePosition(pool, mint solana.PublicKey, lower, upper int32) Position {
	return Position{
		Pool: pool, Mint: mint,
		Range:            Range{Lower: lower, Upper: upper},
		Liquidity:        U128{Lo: 0x7deadbeef},
		FeeGrowthInside0: U128{Hi: 0x11, Lo: 0x22},
		FeeGrowthInside1: U128{Hi: 0x33, Lo: 0x44},
		FeesOwed0:        123456789,
		FeesOwed1:        987654321,
	}
}
