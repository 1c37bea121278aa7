package servertiming

import (
	"net/http"
	"testing"
	"time"
)

func TestSetThenParse(t *testing.T) {
	tests := []struct {
		in     Timing
		header string
		want   Timing
	}{
		{Timing{Name: "sendTransaction", Work: 1234567 * time.Nanosecond}, "sendTransaction;dur=1.235",
			Timing{Name: "sendTransaction", Work: 1235 * time.Microsecond}},
		{Timing{Name: "build_loan", Work: time.Millisecond, Latency: 20412345 * time.Nanosecond}, "build_loan;dur=1.000, latency;dur=20.412",
			Timing{Name: "build_loan", Work: time.Millisecond, Latency: 20412 * time.Microsecond}},
	}
	for _, tt := range tests {
		h := http.Header{}
		Set(h, tt.in)
		if got := h.Get(Header); got != tt.header {
			t.Errorf("Set(%+v): header %q, want %q", tt.in, got, tt.header)
		}
		if got, ok := Parse(h.Get(Header)); !ok || got != tt.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", h.Get(Header), got, ok, tt.want)
		}
	}
}

func TestParse(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		in   string
		want Timing
		ok   bool
	}{
		{"build_loan;dur=2", Timing{Name: "build_loan", Work: 2 * ms}, true},
		{`db;desc="query";DUR=0.5, app;dur=9`, Timing{Name: "db", Work: ms / 2}, true},
		{"app;dur=1, Latency;dur=20", Timing{Name: "app", Work: ms, Latency: 20 * ms}, true},
		{"app;dur=1, cache;dur=3, latency;desc=x;dur=4", Timing{Name: "app", Work: ms, Latency: 4 * ms}, true},
		{"app;dur=1, latency", Timing{}, false},
		{"app;dur=1, latency;dur=-2", Timing{}, false},
		{"", Timing{}, false},
		{"app", Timing{}, false},
		{"app;desc=x", Timing{}, false},
		{"app;dur=x", Timing{}, false},
		{"app;dur=-1", Timing{}, false},
		{";dur=1", Timing{}, false},
	}
	for _, tt := range tests {
		got, ok := Parse(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
