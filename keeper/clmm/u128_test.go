package clmm

import (
	"math/big"
	"testing"
)

func TestU128(t *testing.T) {
	tests := []struct {
		name  string
		dec   string
		want  U128
		float float64
	}{
		{"zero", "0", U128{}, 0},
		{"max u64", "18446744073709551615", U128{Lo: ^uint64(0)}, 18446744073709551615},
		{"2^64", "18446744073709551616", U128{Hi: 1}, 18446744073709551616},
		{"2^64+5", "18446744073709551621", U128{Hi: 1, Lo: 5}, 18446744073709551621},
		{"max u128", "340282366920938463463374607431768211455", U128{Hi: ^uint64(0), Lo: ^uint64(0)}, 3.402823669209385e38},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := U128FromBig(mustBig(t, tt.dec))
			if err != nil {
				t.Fatalf("U128FromBig: %v", err)
			}
			if got != tt.want {
				t.Fatalf("U128FromBig = %+v, want %+v", got, tt.want)
			}
			if s := got.String(); s != tt.dec {
				t.Errorf("String = %s, want %s", s, tt.dec)
			}
			if f := got.Float64(); f != tt.float {
				t.Errorf("Float64 = %v, want %v", f, tt.float)
			}
			if got.IsZero() != (tt.dec == "0") {
				t.Errorf("IsZero = %v", got.IsZero())
			}
			var buf [16]byte
			putU128(buf[:], got)
			if back := getU128(buf[:]); back != got {
				t.Errorf("little-endian round trip = %+v, want %+v", back, got)
			}
		})
	}
}

func TestU128LittleEndian(t *testing.T) {
	var buf [16]byte
	putU128(buf[:], U128{Hi: 0x1122334455667788, Lo: 0x99aabbccddeeff00})
	want := [16]byte{0x00, 0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11}
	if buf != want {
		t.Fatalf("bytes = %x, want %x", buf, want)
	}
}

func TestU128FromBigRejects(t *testing.T) {
	tooBig := new(big.Int).Lsh(big.NewInt(1), 128)
	for _, v := range []*big.Int{nil, big.NewInt(-1), tooBig} {
		if _, err := U128FromBig(v); err == nil {
			t.Errorf("U128FromBig(%v) succeeded, want an error", v)
		}
	}
}
