package servertiming

import (
	"net/http"
	"testing"
	"time"
)

func TestSetThenParse(t *testing.T) {
	h := http.Header{}
	Set(h, "sendTransaction", 1234567*time.Nanosecond)
	if got := h.Get(Header); got != "sendTransaction;dur=1.235" {
		t.Fatalf("header %q", got)
	}
	name, d, ok := Parse(h.Get(Header))
	if !ok || name != "sendTransaction" || d != 1235*time.Microsecond {
		t.Fatalf("Parse = %q, %v, %v", name, d, ok)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		name string
		d    time.Duration
		ok   bool
	}{
		{"build_loan;dur=2", "build_loan", 2 * time.Millisecond, true},
		{`db;desc="query";DUR=0.5, app;dur=9`, "db", 500 * time.Microsecond, true},
		{"", "", 0, false},
		{"app", "", 0, false},
		{"app;desc=x", "", 0, false},
		{"app;dur=x", "", 0, false},
		{"app;dur=-1", "", 0, false},
		{";dur=1", "", 0, false},
	}
	for _, tt := range tests {
		name, d, ok := Parse(tt.in)
		if name != tt.name || d != tt.d || ok != tt.ok {
			t.Errorf("Parse(%q) = %q, %v, %v; want %q, %v, %v", tt.in, name, d, ok, tt.name, tt.d, tt.ok)
		}
	}
}
