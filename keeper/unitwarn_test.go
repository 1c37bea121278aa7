package keeper

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/keeper-project/keeper/policies"
)

// TestUnitSkipWarnsOncePerPolicy: a policy whose amount is in another token
// than its targets spend can never act; the daemon says so at WARN once,
// not on every pass, and again after a reload (the policy may be broken
// anew).
func TestUnitSkipWarnsOncePerPolicy(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p := &policies.Policy{Name: "in-sol", Schedule: "@every 1m"}
	r := newRunner(nil, p)
	res := policies.Result{Policy: p.Name, Skipped: []policies.Skip{
		{Target: "L1", Reason: policies.SkipUnit, Detail: "params.max_amount 200 SOL is in SOL, but the amount is spent in USDC"},
		{Target: "L2", Reason: policies.SkipUnit, Detail: "params.max_amount 200 SOL is in SOL, but the amount is spent in USDC"}}}
	for range 3 {
		r.logSkips(log, res)
	}
	if n := strings.Count(buf.String(), "level=WARN"); n != 1 || !strings.Contains(buf.String(), "is in SOL, but the amount is spent in USDC") {
		t.Fatalf("%d WARN lines over three passes, want 1:\n%s", n, buf.String())
	}
	r.setPolicy(&policies.Policy{Name: "in-sol", Schedule: "@every 1m"})
	r.logSkips(log, res)
	if n := strings.Count(buf.String(), "level=WARN"); n != 2 {
		t.Errorf("after a reload: %d WARN lines, want 2:\n%s", n, buf.String())
	}
}
