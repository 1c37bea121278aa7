package policies

import (
	"strings"
	"testing"
)

// TestLongNamesAreNotQuoted pastes a private key where a policy's own key checks read a key (a daily
// cap's mint, the rebalance trigger's member) and where an address goes (a selection, a trigger, a
// strategy rule's collateral): the errors say what is wrong without carrying it.
func TestLongNamesAreNotQuoted(t *testing.T) {
	const secret = "2RC5QvT9s3kVn1bQxYp8LmZ7wHfJcDaEgUoRiKtNyBzXq4WeSdFgHjKlMnBvCxZaQwErTy"
	cases := map[string][]string{
		policyYAML("name: r", "kind: repay", `schedule: "@hourly"`, "limits: {daily_caps: {"+secret+": 0}}",
			"params: {trigger_health: 0.1, target_health: 0.2, max_amount: 1}"): {
			"limits.daily_caps: a value of 70 characters is not a base58 mint address",
			"limits.daily_caps.[a value of 70 characters] must be positive",
		},
		policyYAML("name: rb", "kind: rebalance", `schedule: "@hourly"`, "params: {width_ticks: 200, trigger: {"+secret+": 1}}"): {
			"params.trigger: unknown field a value of 70 characters (only edge_pct)",
		},
		policyYAML("name: a", "kind: alert", `schedule: "@hourly"`, "select: {target: loans, borrowers: ["+secret+"]}",
			"when: loan.health < 1.2", "params: {message: hi}",
			"triggers: {price: [{mint: "+secret+", change: 0.1}], account: [{address: "+secret+"}]}"): {
			"select.borrowers[0]: a value of 70 characters is not a base58 address",
			"triggers.price[0].mint: a value of 70 characters is not a base58 mint address",
			"triggers.account[0].address: a value of 70 characters is not a base58 address",
		},
		policyYAML("name: su", "kind: strategy-update", `schedule: "@hourly"`, "params:") +
			indent([]string{"  rules:", "    - collaterals: [" + secret + "]", "      apy: current_apy"}): {
			"collaterals[0]: a value of 70 characters is neither",
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
