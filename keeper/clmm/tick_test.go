package clmm

import (
	"math"
	"strings"
	"testing"
)

// near reports whether got is within a relative 1e-14 of want.
func near(got, want float64) bool {
	return math.Abs(got-want) <= 1e-14*math.Max(math.Abs(want), 1e-300)
}

// Expected prices are 1.0001^tick worked out independently: by hand for the
// small ticks, with 40-digit decimal arithmetic for the others.
func TestPriceAtTick(t *testing.T) {
	tests := []struct {
		tick int32
		want float64
	}{
		{0, 1},
		{1, 1.0001},
		{2, 1.00020001},          // 1.0001²
		{-1, 0.9999000099990001}, // 1 / 1.0001
		{10000, 2.718145926825224864},
		{23027, 9.999997796810696239},
		{23028, 10.00099779659037731},
		{MaxTick, 1.844605071109770353e19}, // just under 2^64
		{MinTick, 5.421214631044951386e-20},
	}
	for _, tt := range tests {
		if got := PriceAtTick(tt.tick); !near(got, tt.want) {
			t.Errorf("PriceAtTick(%d) = %.17g, want %.17g", tt.tick, got, tt.want)
		}
	}
}

// Expected ticks are floor(ln(price) / ln(1.0001)), worked out independently:
// ln 10 / ln 1.0001 = 23027.0022, ln 0.5 / ln 1.0001 = −6931.818,
// ln 0.15 / ln 1.0001 = −18972.148.
func TestTickAtPrice(t *testing.T) {
	tests := []struct {
		price float64
		want  int32
	}{
		{1, 0},
		{1.0001, 1},     // exactly on tick 1
		{1.00009999, 0}, // just below tick 1
		{0.9999000099990001, -1},
		{0.99990001, -1}, // a hair above tick −1
		{10, 23027},
		{0.5, -6932},
		{0.15, -18973},
		{PriceAtTick(MaxTick), MaxTick},
		{PriceAtTick(MinTick), MinTick},
		{PriceAtTick(-100000), -100000},
		{PriceAtTick(100001), 100001},
	}
	for _, tt := range tests {
		got, err := TickAtPrice(tt.price)
		if err != nil || got != tt.want {
			t.Errorf("TickAtPrice(%.17g) = %d, %v; want %d", tt.price, got, err, tt.want)
		}
	}
}

func TestTickAtPriceRoundTrip(t *testing.T) {
	for tick := MinTick; tick <= MaxTick; tick += 997 {
		got, err := TickAtPrice(PriceAtTick(tick))
		if err != nil || got != tick {
			t.Fatalf("TickAtPrice(PriceAtTick(%d)) = %d, %v", tick, got, err)
		}
	}
}

func TestTickAtPriceErrors(t *testing.T) {
	tests := []struct {
		price float64
		want  string
	}{
		{0, "not a positive finite number"},
		{-1, "not a positive finite number"},
		{math.NaN(), "not a positive finite number"},
		{math.Inf(1), "not a positive finite number"},
		{1e20, "outside the tick range"},
		{1e-20, "outside the tick range"},
		{PriceAtTick(MinTick) * 0.99999, "outside the tick range"},
	}
	for _, tt := range tests {
		if _, err := TickAtPrice(tt.price); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("TickAtPrice(%v) error = %v, want %q", tt.price, err, tt.want)
		}
	}
}

// Q64.64 inputs chosen so the square is exact: 2^64 is sqrt price 1, 2^63 is
// 0.5 (price 0.25), 2^65 is 2 (price 4), 3·2^62 is 0.75 (price 0.5625).
func TestPriceFromSqrtX64(t *testing.T) {
	tests := []struct {
		sqrt       U128
		dec0, dec1 uint8
		raw, price float64
	}{
		{U128{Hi: 1}, 6, 6, 1, 1},
		{U128{Lo: 1 << 63}, 9, 6, 0.25, 250}, // 0.25 × 10^(9−6)
		{U128{Hi: 2}, 6, 9, 4, 0.004},        // 4 × 10^(6−9)
		{U128{Lo: 3 << 62}, 8, 8, 0.5625, 0.5625},
		{U128{}, 6, 6, 0, 0},
	}
	for _, tt := range tests {
		if got := RawPriceFromSqrtX64(tt.sqrt); got != tt.raw {
			t.Errorf("RawPriceFromSqrtX64(%s) = %v, want %v", tt.sqrt, got, tt.raw)
		}
		if got := PriceFromSqrtX64(tt.sqrt, tt.dec0, tt.dec1); !near(got, tt.price) {
			t.Errorf("PriceFromSqrtX64(%s, %d, %d) = %v, want %v", tt.sqrt, tt.dec0, tt.dec1, got, tt.price)
		}
		if tt.raw > 0 && !near(UnscalePrice(tt.price, tt.dec0, tt.dec1), tt.raw) {
			t.Errorf("UnscalePrice(%v, %d, %d) = %v, want %v", tt.price, tt.dec0, tt.dec1,
				UnscalePrice(tt.price, tt.dec0, tt.dec1), tt.raw)
		}
	}
}

func TestPoolPrice(t *testing.T) {
	a := samplePoolA() // sqrt price 2^63, decimals 9 and 6
	if got, ok := a.Price(); !ok || !near(got, 250) {
		t.Errorf("layout A Price = %v, %v; want 250, true", got, ok)
	}
	if got := a.RawPrice(); got != 0.25 {
		t.Errorf("RawPrice = %v, want 0.25", got)
	}
	// ln 0.25 / ln 1.0001 = −13863.64, so the sample's current tick −13864
	// matches its sqrt price.
	if tick, err := TickAtPrice(a.RawPrice()); err != nil || tick != a.TickCurrent {
		t.Errorf("TickAtPrice(0.25) = %d, %v; want %d", tick, err, a.TickCurrent)
	}
	if _, ok := samplePoolB().Price(); ok {
		t.Error("layout B pool reported a price without decimals")
	}
}

func TestSqrtPriceX64FromRawPrice(t *testing.T) {
	tests := []struct {
		raw  float64
		want U128
	}{
		{1, U128{Hi: 1}},
		{0.25, U128{Lo: 1 << 63}},
		{4, U128{Hi: 2}},
		{0.5625, U128{Lo: 3 << 62}},
	}
	for _, tt := range tests {
		got, err := SqrtPriceX64FromRawPrice(tt.raw)
		if err != nil || got != tt.want {
			t.Errorf("SqrtPriceX64FromRawPrice(%v) = %s, %v; want %s", tt.raw, got, err, tt.want)
		}
	}
	// Truncating to whole Q64.64 units costs up to 2^-64 / sqrt(raw) of
	// relative precision: 1e-13 at a raw price of 1e-12.
	for _, raw := range []float64{1e-12, 0.15, 3.3, 1e12} {
		s, err := SqrtPriceX64FromRawPrice(raw)
		if got := RawPriceFromSqrtX64(s); err != nil || math.Abs(got/raw-1) > 1e-12 {
			t.Errorf("price %v round trip = %v, %v", raw, got, err)
		}
	}
	for _, raw := range []float64{0, -2, math.NaN(), math.Inf(1), 1e40} {
		if _, err := SqrtPriceX64FromRawPrice(raw); err == nil {
			t.Errorf("SqrtPriceX64FromRawPrice(%v) succeeded", raw)
		}
	}
}
