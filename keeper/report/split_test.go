package report

import (
	"math/big"
	"strings"
	"testing"
)

func rats(m map[string]string) map[string]*big.Rat {
	out := map[string]*big.Rat{}
	for k, v := range m {
		r, ok := new(big.Rat).SetString(v)
		if !ok {
			panic(v)
		}
		out[k] = r
	}
	return out
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name    string
		holders map[string]string
		budget  uint64
		want    map[string]uint64
		rem     []string // holders given a unit of the remainder
	}{
		// 1000·4200/5700 = 736.84, 1000·1500/5700 = 263.16: one unit left, to the larger fraction.
		{"remainder to the largest fraction", map[string]string{"a": "4200", "b": "1500", "c": "0"}, 1000,
			map[string]uint64{"a": 737, "b": 263, "c": 0}, []string{"a"}},
		// Three equal holders of 10: 3.33 each, one unit left; the tie goes to the lowest address.
		{"ties to the lower address", map[string]string{"z": "1", "m": "1", "b": "1"}, 10,
			map[string]uint64{"b": 4, "m": 3, "z": 3}, []string{"b"}},
		{"exact", map[string]string{"a": "0.5", "b": "1.5"}, 8, map[string]uint64{"a": 2, "b": 6}, nil},
		// Deposit-seconds far beyond float64's exact integers still split exactly.
		{"large figures", map[string]string{"a": "123456789012345678901", "b": "123456789012345678902"}, 3,
			map[string]uint64{"a": 1, "b": 2}, []string{"b"}},
		{"full budget", map[string]string{"a": "1", "b": "2"}, 1<<64 - 1,
			map[string]uint64{"a": 6148914691236517205, "b": 12297829382473034410}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			shares, err := Split(rats(tc.holders), tc.budget)
			if err != nil {
				t.Fatal(err)
			}
			var sum uint64
			got := map[string]uint64{}
			var rem []string
			for _, s := range shares {
				got[s.Holder] = s.Units
				sum += s.Units
				if s.Remainder {
					rem = append(rem, s.Holder)
				}
			}
			if sum != tc.budget {
				t.Errorf("parts sum to %d, want the budget %d", sum, tc.budget)
			}
			for h, u := range tc.want {
				if got[h] != u {
					t.Errorf("%s got %d, want %d (all: %v)", h, got[h], u, got)
				}
			}
			if strings.Join(rem, ",") != strings.Join(tc.rem, ",") {
				t.Errorf("remainder units to %v, want %v", rem, tc.rem)
			}
		})
	}
}

func TestSplitRefuses(t *testing.T) {
	for name, holders := range map[string]map[string]string{
		"no deposit-seconds": {"a": "0", "b": "0"},
		"negative":           {"a": "10", "b": "-1"},
		"no holders":         {},
	} {
		if _, err := Split(rats(holders), 100); err == nil {
			t.Errorf("%s: split without an error", name)
		}
	}
}

func TestSplitOrder(t *testing.T) {
	shares, err := Split(rats(map[string]string{"a": "1", "b": "3", "c": "3"}), 70)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, s := range shares {
		order = append(order, s.Holder)
	}
	if got := strings.Join(order, ","); got != "b,c,a" {
		t.Errorf("order %s, want b,c,a (by units, then address)", got)
	}
}
