package policies

import (
	"strings"
	"testing"
)

// TestLongKeysAreNotQuoted pastes a private key where a policy's own key checks read a key (a daily
// cap's mint, the rebalance trigger's member): the errors say what is wrong without carrying it.
func TestLongKeysAreNotQuoted(t *testing.T) {
	const secret = "2RC5QvT9s3kVn1bQxYp8LmZ7wHfJcDaEgUoRiKtNyBzXq4WeSdFgHjKlMnBvCxZaQwErTy"
	cases := map[string][]string{
		policyYAML("name: r", "kind: repay", `schedule: "@hourly"`, "limits: {daily_caps: {"+secret+": 0}}",
			"params: {trigger_health: 0.1, target_health: 0.2, max_amount: 1}"): {
			"limits.daily_caps: a key of 70 characters is not a base58 mint address",
			"limits.daily_caps.[a key of 70 characters] must be positive",
		},
		policyYAML("name: rb", "kind: rebalance", `schedule: "@hourly"`, "params: {width_ticks: 200, trigger: {"+secret+": 1}}"): {
			"params.trigger: unknown field a key of 70 characters (only edge_pct)",
		},
	}
	for src, wants := range cases {
		_, err := Parse("p.yaml", []byte(src))
		if err == nil {
			t.Fatalf("no error for %.40q…", src)
		}
		if strings.Contains(err.Error(), "QvT9s3kVn1bQ") {
			t.Errorf("error carries the key: %v", err)
		}
		for _, want := range wants {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
	}
}
