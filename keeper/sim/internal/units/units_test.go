package units

import (
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
)

func TestParseUnits(t *testing.T) {
	tests := []struct {
		in      string
		dec     uint8
		want    uint64
		wantErr bool
	}{
		{"12.5", 6, 12_500_000, false},
		{"0.000001", 6, 1, false},
		{"1_000", 0, 1000, false},
		{"", 9, 0, false},
		{"0.0000001", 6, 0, true},
		{"-1", 6, 0, true},
		{"1e3", 6, 0, true},
		{"abc", 6, 0, true},
		{"18446744073709551616", 0, 0, true},
	}
	for _, tc := range tests {
		got, err := ParseUnits(tc.in, tc.dec)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("parseUnits(%q, %d) = %d, %v; want %d, error %v", tc.in, tc.dec, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestParseOffsetAndTerm(t *testing.T) {
	offsets := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30s", 30 * time.Second, true},
		{"-10d", -240 * time.Hour, true},
		{"1d12h", 36 * time.Hour, true},
		{"-1d2h", -26 * time.Hour, true},
		{"1d-2h", 0, false},
		{"soon", 0, false},
	}
	for _, tc := range offsets {
		got, err := ParseOffset(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("parseOffset(%q) = %s, %v", tc.in, got, err)
		}
	}
	terms := []struct {
		in   string
		want instr.Term
		secs int64
	}{
		{"7d", instr.Term{DurationType: instr.TermDays, Duration: 7}, 7 * 86_400},
		{"2w", instr.Term{DurationType: instr.TermWeeks, Duration: 2}, 14 * 86_400},
		{"3mo", instr.Term{DurationType: instr.TermMonths, Duration: 3}, 90 * 86_400},
		{"90m", instr.Term{DurationType: instr.TermMinutes, Duration: 90}, 5400},
		{"1y", instr.Term{DurationType: instr.TermYears, Duration: 1}, 365 * 86_400},
	}
	for _, tc := range terms {
		got, err := ParseTerm(tc.in)
		secs, _ := TermSeconds(got)
		if err != nil || got != tc.want || secs != tc.secs {
			t.Errorf("parseTerm(%q) = %+v (%d s), %v", tc.in, got, secs, err)
		}
	}
	if _, err := ParseTerm("7x"); err == nil {
		t.Errorf("parseTerm accepted 7x")
	}
}
