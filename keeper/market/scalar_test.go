package market

import (
	"encoding/json"
	"testing"
)

func TestAmountDecode(t *testing.T) {
	tests := []struct {
		in      string
		want    Amount
		wantErr bool
	}{
		{`123`, 123, false},
		{`"123"`, 123, false},
		{`" 42 "`, 42, false},
		{`18446744073709551615`, 18446744073709551615, false}, // max uint64, beyond float64 precision
		{`"18446744073709551615"`, 18446744073709551615, false},
		{`1e6`, 1_000_000, false},
		{`"5.0"`, 5, false},
		{`null`, 77, false}, // null leaves the preset value
		{`""`, 77, false},
		{`-1`, 0, true},
		{`"1.5"`, 0, true},
		{`18446744073709551616`, 0, true}, // 2^64
		{`"abc"`, 0, true},
		{`true`, 0, true},
		{`{}`, 0, true},
		{`"NaN"`, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got := Amount(77)
			err := json.Unmarshal([]byte(tc.in), &got)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if !tc.wantErr && got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}

func TestAmountEncodesNumber(t *testing.T) {
	b, err := json.Marshal(struct {
		A Amount  `json:"a"`
		P *Amount `json:"p,omitempty"`
	}{A: 18446744073709551615})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"a":18446744073709551615}` {
		t.Errorf("encoded %s", b)
	}
}

func TestNumberDecode(t *testing.T) {
	tests := []struct {
		in      string
		want    Number
		wantErr bool
	}{
		{`0.5`, 0.5, false},
		{`"0.5"`, 0.5, false},
		{`"1000000000"`, 1e9, false},
		{`-2.25`, -2.25, false},
		{`"1e-9"`, 1e-9, false},
		{`null`, 3, false},
		{`""`, 3, false},
		{`"NaN"`, 0, true},
		{`"Inf"`, 0, true},
		{`"x"`, 0, true},
		{`[1]`, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got := Number(3)
			err := json.Unmarshal([]byte(tc.in), &got)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if !tc.wantErr && got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNumberEncode(t *testing.T) {
	tests := []struct {
		in   Number
		want string
	}{{0.5, "0.5"}, {1e9, "1e+09"}, {12, "12"}, {-0.015, "-0.015"}}
	for _, tc := range tests {
		b, err := json.Marshal(tc.in)
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", float64(tc.in), b, err, tc.want)
		}
		var back Number
		if err := json.Unmarshal(b, &back); err != nil || back != tc.in {
			t.Errorf("round trip of %v gave %v, %v", float64(tc.in), back, err)
		}
	}
}

func TestUnixTimeDecode(t *testing.T) {
	tests := []struct {
		in      string
		want    UnixTime
		wantErr bool
	}{
		{`1700000000`, 1700000000, false},
		{`"1700000000"`, 1700000000, false},
		{`1700000000.9`, 1700000000, false}, // truncated
		{`1.7e9`, 1700000000, false},
		{`-5`, -5, false},
		{`"soon"`, 0, true},
		{`false`, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			var got UnixTime
			err := json.Unmarshal([]byte(tc.in), &got)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if !tc.wantErr && got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
	if got := UnixTime(1700000000).Time().Format("2006-01-02T15:04:05Z07:00"); got != "2023-11-14T22:13:20Z" {
		t.Errorf("Time() = %s", got)
	}
}

func TestCBPS(t *testing.T) {
	tests := []struct {
		in      string
		want    CBPS
		wantErr bool
	}{
		{`850000`, 850000, false}, {`"85000"`, 85000, false}, {`"1e6"`, 1_000_000, false},
		{`"0.5"`, 0, true}, {`"ten"`, 0, true},
	}
	for _, tc := range tests {
		var got CBPS
		err := json.Unmarshal([]byte(tc.in), &got)
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
			t.Errorf("Unmarshal(%s) = %d, %v; want %d, err %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
	if f := CBPS(85000).Fraction(); f != 0.085 {
		t.Errorf("Fraction = %v, want 0.085", f)
	}
	if c := CBPSFromFraction(0.085); c != 85000 {
		t.Errorf("CBPSFromFraction(0.085) = %d, want 85000", c)
	}
	if s := CBPS(120000).Decimal(); s != "120000" {
		t.Errorf("Decimal = %q", s)
	}
}

func TestExternalAPY(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		wantErr bool
	}{
		{`0.05`, 0.05, false},     // JSON number: fraction
		{`"0.05"`, 0.05, false},   // decimal string: fraction
		{`"5e-2"`, 0.05, false},   // exponent string: fraction
		{`"50000"`, 0.05, false},  // digits-only string: cBPS, 50000/1e6
		{`"1000000"`, 1.0, false}, // cBPS 100 %
		{`0`, 0, false},           // zero either way
		{`"0"`, 0, false},         // zero either way
		{`null`, 0, false},
		{`"five"`, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			var got ExternalAPY
			err := json.Unmarshal([]byte(tc.in), &got)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if !tc.wantErr && got.Fraction() != tc.want {
				t.Errorf("got %v, want %v", got.Fraction(), tc.want)
			}
		})
	}
}

func TestDurationKey(t *testing.T) {
	tests := []struct {
		d    StrategyDuration
		want string
	}{
		{StrategyDuration{DurationDays, 1}, `{"durationType":0,"duration":1}`},
		{StrategyDuration{DurationYears, 2}, `{"durationType":4,"duration":2}`},
		{StrategyDuration{DurationType(9), 30}, `{"durationType":9,"duration":30}`},
	}
	for _, tc := range tests {
		if got := tc.d.Key(); got != tc.want {
			t.Errorf("Key() = %s, want %s", got, tc.want)
		}
		b, _ := json.Marshal(tc.d)
		if string(b) != tc.want {
			t.Errorf("Marshal = %s, want %s (key and JSON form must agree)", b, tc.want)
		}
		back, err := ParseDurationKey(tc.want)
		if err != nil || back != tc.d {
			t.Errorf("ParseDurationKey(%s) = %v, %v", tc.want, back, err)
		}
	}
}

func TestParseDurationKeyErrors(t *testing.T) {
	for _, in := range []string{
		`{"duration":1}`, `{"durationType":0}`, `{"durationType":0,"duration":-1}`,
		`{"durationType":0,"duration":1,"x":2}`, `{"durationType":0,"duration":1} {}`, `7 days`,
	} {
		if _, err := ParseDurationKey(in); err == nil {
			t.Errorf("ParseDurationKey(%s) succeeded", in)
		}
	}
	if d, err := ParseDurationKey(`{"duration":3,"durationType":1}`); err != nil || d != (StrategyDuration{DurationWeeks, 3}) {
		t.Errorf("reordered key = %v, %v", d, err)
	}
}

func TestDurationAPYsRoundTrip(t *testing.T) {
	in := map[StrategyDuration]CBPS{{DurationDays, 7}: 85000, {DurationMonths, 1}: 100000}
	wire := DurationAPYs(in)
	want := map[string]string{`{"durationType":0,"duration":7}`: "85000", `{"durationType":2,"duration":1}`: "100000"}
	if len(wire) != len(want) {
		t.Fatalf("wire = %v", wire)
	}
	for k, v := range want {
		if wire[k] != v {
			t.Errorf("wire[%s] = %q, want %q", k, wire[k], v)
		}
	}
	back, err := ParseDurationAPYs(wire)
	if err != nil || len(back) != 2 || back[StrategyDuration{DurationDays, 7}] != 85000 {
		t.Errorf("ParseDurationAPYs = %v, %v", back, err)
	}
	if _, err := ParseDurationAPYs(map[string]string{`{"durationType":0,"duration":7}`: "8.5%"}); err == nil {
		t.Error("a non-integer APY parsed")
	}
}
