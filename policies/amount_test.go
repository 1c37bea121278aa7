package policies

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func amountOf(t *testing.T, src string) (Amount, error) {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("v: "+src), &n); err != nil {
		t.Fatal(err)
	}
	var a Amount
	return a, a.UnmarshalYAML(n.Content[0].Content[1])
}

func TestAmountUnits(t *testing.T) {
	usdcMint, solMint := key("usdc"), key("sol")
	tokens := map[string]Token{usdcMint: {Symbol: "USDC", Decimals: 6}, solMint: {Symbol: "SOL", Decimals: 9}}
	tests := []struct {
		src, mint string
		want      uint64
		err       string
	}{
		{"500000000", usdcMint, 500_000_000, ""},
		{"1_000", usdcMint, 1000, ""},
		{"300 USDC", usdcMint, 300_000_000, ""},
		{"300 usdc", usdcMint, 300_000_000, ""},
		{"151.746575 USDC", usdcMint, 151_746_575, ""},
		{"0.5 SOL", solMint, 500_000_000, ""},
		{`"2.50 ` + solMint + `"`, solMint, 2_500_000_000, ""},
		{"0.0000001 USDC", usdcMint, 0, "more decimals than USDC"},
		{"300 USDC", solMint, 0, "is in USDC, but the amount is spent in SOL"},
		{"300 USDC", key("unknown"), 0, "decimals of"},
		{"18446744073709.551616 USDC", usdcMint, 0, "more than"},
		{"18446744073709.551615 USDC", usdcMint, 1<<64 - 1, ""},
	}
	for _, tc := range tests {
		a, err := amountOf(t, tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		got, err := a.Units(tc.mint, tokens)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s in %s: %d, %v; want an error saying %q", tc.src, tc.mint, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s in %s: %d, %v; want %d", tc.src, tc.mint, got, err, tc.want)
		}
	}
}

func TestAmountRefusesWhatIsNotAnAmount(t *testing.T) {
	for _, src := range []string{"-1", "1.5", "USDC", `"300"`, `"300 "`, "3e2 USDC", "300 US DC", "1..2 USDC", "[1]", ". USDC"} {
		if a, err := amountOf(t, src); err == nil {
			t.Errorf("%s read as %s", src, a)
		}
	}
}

// TestAmountInAnotherToken: an amount written in another token than the
// one a target spends skips it as `unit`, which says the policy can never
// act on it (unlike no_data, which a later read may cure); a unit that is
// another mint's address is known to be another token without its
// decimals.
func TestAmountInAnotherToken(t *testing.T) {
	for _, tc := range []struct {
		max    string
		tokens map[string]Token
		want   SkipReason
		detail string
	}{
		{"200 SOL", tokens, SkipUnit, "params.max_amount 200 SOL is in SOL, but the amount is spent in USDC"},
		{`"200 ` + key("sol") + `"`, nil, SkipUnit, "is in " + shortKey(key("sol")) + ", but the amount is spent in"},
		{"200 USDC", nil, SkipNoData, "the decimals of"},
	} {
		p := parseOne(t, policyYAML("name: r", "kind: repay", `schedule: "@every 1m"`,
			"params: {trigger_health: 0.1, target_health: 0.25, max_amount: "+tc.max+"}"))
		obs := observe(lowLoan("a"))
		obs.Tokens = tc.tokens
		res := evaluate(t, p, obs)
		if len(res.Actions) != 0 || len(res.Skipped) != 1 || res.Skipped[0].Reason != tc.want || !strings.Contains(res.Skipped[0].Detail, tc.detail) {
			t.Errorf("max_amount %s: actions %+v, skips %+v; want %s saying %q", tc.max, res.Actions, res.Skipped, tc.want, tc.detail)
		}
	}
}
