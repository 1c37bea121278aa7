package chain

import (
	"testing"
	"time"
)

func TestJitoEndpointURL(t *testing.T) {
	tests := map[string]string{
		"https://mainnet.block-engine.jito.wtf":           "https://mainnet.block-engine.jito.wtf/api/v1/bundles",
		"https://mainnet.block-engine.jito.wtf/":          "https://mainnet.block-engine.jito.wtf/api/v1/bundles",
		"https://ny.block-engine.jito.wtf/api/v1/bundles": "https://ny.block-engine.jito.wtf/api/v1/bundles",
		"https://mainnet.block-engine.jito.wtf/?uuid=abc": "https://mainnet.block-engine.jito.wtf/api/v1/bundles?uuid=abc",
		"http://127.0.0.1:7072":                           "http://127.0.0.1:7072/api/v1/bundles",
	}
	for in, want := range tests {
		if got := jitoEndpointURL(in); got != want {
			t.Errorf("jitoEndpointURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJitoClient(t *testing.T) {
	fc := newFakeChain(150)
	c, _ := newMemClient(t, fc, nil)
	accs, err := c.bundles.jito.tipAccounts(t.Context())
	if err != nil || len(accs) != 8 || accs[3] != fc.tipAccounts[3] {
		t.Fatalf("tipAccounts = %v, %v", accs, err)
	}
	st, err := c.bundles.jito.inflightStatuses(t.Context(), []string{"unknown"})
	if err != nil || st["unknown"].Status != bundleInvalid {
		t.Errorf("inflight of an unknown bundle = %+v, %v; want Invalid", st, err)
	}
	lb, err := c.bundles.jito.bundleStatus(t.Context(), "unknown")
	if err != nil || lb != nil {
		t.Errorf("bundleStatus of an unknown bundle = %+v, %v; want nil", lb, err)
	}
	for _, n := range []int{0, 6} {
		if _, err := c.bundles.jito.sendBundle(t.Context(), make([][]byte, n)); err == nil || !contains(err.Error(), "want 1 to 5") {
			t.Errorf("sendBundle of %d: err %v", n, err)
		}
	}
	for _, call := range fc.calls {
		if call.path != jitoBundlesPath || call.auth != "jito-uuid-secret" || call.host != "jito.test" {
			t.Errorf("call %s to %s%s with auth %q", call.method, call.host, call.path, call.auth)
		}
	}
	fc.tipAccounts = nil
	if _, err := c.bundles.jito.tipAccounts(t.Context()); err == nil {
		t.Error("want an error for an empty tip account list")
	}
}

// TestJitoSpacing: requests to the engine go a tenth wider apart than its
// limit allows.
func TestJitoSpacing(t *testing.T) {
	for rps, want := range map[float64]time.Duration{1: 1100 * time.Millisecond, 2: 550 * time.Millisecond, 0.5: 2200 * time.Millisecond} {
		if got := jitoSpacing(rps); got != want {
			t.Errorf("jitoSpacing(%g) = %v, want %v", rps, got, want)
		}
	}
}
