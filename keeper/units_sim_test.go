package keeper

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/sim/ids"
)

// unitRepay is a repay policy on the wallet's loans against SOL whose
// amounts are written in tokens (format with the SOL mint, max_amount and
// the daily cap line).
const unitRepay = `policies:
  - name: unit-repay
    kind: repay
    schedule: "@every 5s"
    select: { collateral_mints: [%s] }
    params: { trigger_health: 0.2, target_health: 0.3, min_amount: 1 USDC, max_amount: %s }
    limits: { cooldown: 10m%s }
`

// TestRepayAmountsInTokensOnSim: with SOL at 110, loan repay-me needs
// 151.746575 USDC to reach 0.30. max_amount "100 USDC" is resolved with
// USDC's decimals from the chain and caps the repay at 100,000,000 units; a
// daily cap of "80 USDC" caps it further; an amount written in SOL is never
// spent on a USDC loan: the loan is skipped and plan says why.
func TestRepayAmountsInTokensOnSim(t *testing.T) {
	cases := []struct {
		name, max, capLine string
		want               uint64
		skipped            string
	}{
		{"max_amount in USDC", "100 USDC", "", 100_000_000, ""},
		{"a daily cap in USDC", "200 USDC", ", daily_caps: { %s: 80 USDC }", 80_000_000, ""},
		{"max_amount in another token", "1 SOL", "", 0, "params.max_amount 1 SOL is in SOL, but the amount is spent in USDC"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newSimWorld(t, simOptions{scenario: scenarioWith(t, "", "")})
				sol, usdc := w.address(t, ids.KindMint, "SOL").String(), w.usdc(t).String()
				capLine := tc.capLine
				if capLine != "" {
					capLine = fmt.Sprintf(capLine, usdc)
				}
				w.writePolicy(t, "unit.yaml", fmt.Sprintf(unitRepay, sol, tc.max, capLine))
				k := w.open(t, "")
				w.advance(t, 15*time.Second)
				if tc.skipped != "" {
					plans, err := k.Plan(t.Context())
					if err != nil || len(plans) != 1 || len(plans[0].Actions) != 0 || len(plans[0].Skipped) == 0 ||
						!strings.Contains(plans[0].Skipped[0].Detail, tc.skipped) {
						t.Fatalf("plan: %+v, %v; want the loan skipped saying %q", plans, err, tc.skipped)
					}
					return
				}
				if err := k.RunOnce(t.Context()); err != nil {
					t.Fatal(err)
				}
				acts := k.actionsOf(t, "unit-repay")
				if len(acts) != 1 || acts[0].State != journal.StateLanded || acts[0].Amount != tc.want || acts[0].Mint != usdc {
					t.Fatalf("actions %+v, want one landed repay of %d USDC units", acts, tc.want)
				}
			})
		})
	}
}

// TestAmountsCheckedAtStartOnSim: an amount whose policy names its mint is
// checked before any run: a daily cap of USDC written in SOL, or a
// max_amount with more decimals than USDC has, keeps run --once from
// starting, naming the policy, the key and why; the same amounts in USDC
// start.
func TestAmountsCheckedAtStartOnSim(t *testing.T) {
	cases := []struct {
		name, params, caps, want string
	}{
		{"a daily cap in another token", "max_amount: 200 USDC", "daily_caps: { %[1]s: 80 SOL }",
			"policy checked: limits.daily_caps.%[1]s 80 SOL is in SOL, but the amount is spent in USDC"},
		{"more decimals than the mint", "max_amount: 1.0000001 USDC", "",
			"policy checked: params.max_amount 1.0000001 USDC has more decimals than USDC"},
		{"all in USDC", "max_amount: 200 USDC", "daily_caps: { %[1]s: 80 USDC }", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newSimWorld(t, simOptions{})
				usdc := w.usdc(t).String()
				caps := ""
				if tc.caps != "" {
					caps = ", " + fmt.Sprintf(tc.caps, usdc)
				}
				w.writePolicy(t, "checked.yaml", fmt.Sprintf(`policies:
  - name: checked
    kind: repay
    schedule: "@every 5s"
    select: { principal_mints: [%s] }
    params: { trigger_health: 0.2, target_health: 0.3, %s }
    limits: { cooldown: 10m%s }
`, usdc, tc.params, caps))
				k := w.open(t, "")
				err := k.RunOnce(t.Context())
				if tc.want == "" {
					if err != nil {
						t.Fatalf("RunOnce: %v", err)
					}
					return
				}
				if want := strings.ReplaceAll(tc.want, "%[1]s", usdc); err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("RunOnce: %v; want it refused saying %q", err, want)
				}
			})
		})
	}
}
