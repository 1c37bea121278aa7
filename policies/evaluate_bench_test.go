package policies

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

// benchPolicies are ten policies over loans: repay policies with and
// without `when`, and alerts.
const benchPolicies = `
policies:
  - {name: r1, kind: repay, schedule: "@every 1m", params: {trigger_health: 0.1, target_health: 0.25, max_amount: 5000000000}}
  - {name: r2, kind: repay, schedule: "@every 1m", when: "loan.health < 0.2 && loan.debt_usd > 100", params: {target_health: 0.3, max_amount: 5000000000}}
  - {name: r3, kind: repay, schedule: "@every 1m", select: {principal_mints: [%[1]s]}, params: {trigger_health: 0.08, target_ltv: 0.5, max_amount: 5000000000}}
  - {name: r4, kind: repay, schedule: "@every 1m", for: 5m, params: {trigger_health: 0.1, target_health: 0.2, max_amount: 5000000000}}
  - {name: r5, kind: repay, schedule: "@every 1m", when: "loan.is_active && loan.ltv > 0.7", params: {target_health: 0.2, max_amount: 5000000000, repay_all_within: 1h}}
  - {name: a1, kind: alert, schedule: "@every 1m", select: {target: loans}, when: "loan.health < 0.05", params: {message: "{{.loan.address}}"}}
  - {name: a2, kind: alert, schedule: "@every 1m", select: {target: loans}, when: "loan.seconds_to_end < 86400", params: {message: "{{.loan.address}}"}}
  - {name: a3, kind: alert, schedule: "@every 1m", select: {target: loans}, when: "loan.pnl_usd < -1000", params: {message: "{{.loan.address}}"}}
  - {name: a4, kind: alert, schedule: "@every 1m", select: {target: loans}, when: "loan.collateral_usd > 1000000", params: {message: "{{.loan.address}}"}}
  - {name: a5, kind: alert, schedule: "@every 1m", select: {target: loans}, when: "loan.daily_carry_usd < -500", params: {message: "{{.loan.address}}"}}
`

// benchLoans returns n loans of the wallet, one in a hundred below health 0.1.
func benchLoans(n int) []market.LoanItem {
	out := make([]market.LoanItem, n)
	for i := range out {
		principal := uint64(4_000_000_000)
		if i%100 == 0 {
			principal = 7_500_000_000
		}
		out[i] = loan(fmt.Sprintf("loan %d", i), 10_000, full(principal))
	}
	return out
}

// BenchmarkEvaluate evaluates 10 policies over 10,000 loans per op.
// "fresh" derives the loans' facts in every op (a new Observation);
// "cached" reuses one Observation, as the policies of one run would.
func BenchmarkEvaluate(b *testing.B) {
	ps, err := Parse("bench.yaml", []byte(fmt.Sprintf(benchPolicies, usdc)))
	if err != nil {
		b.Fatal(err)
	}
	loans := benchLoans(10_000)
	for _, mode := range []string{"fresh", "cached"} {
		b.Run(mode, func(b *testing.B) {
			obs := &Observation{Wallet: wallet, SnapshotTime: t0, Loans: loans, Tokens: tokens}
			states := make([]State, len(ps))
			evalAll := func() {
				if mode == "fresh" {
					obs = &Observation{Wallet: wallet, SnapshotTime: t0, Loans: loans, Tokens: tokens}
				}
				for i, p := range ps {
					if _, err := Evaluate(p, obs, t0, History{}, &states[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
			evalAll()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			b.ResetTimer()
			for b.Loop() {
				evalAll()
			}
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			evals := float64(b.N) * float64(len(ps)*len(loans))
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/evals, "allocs/loan/policy")
			b.ReportMetric(float64(elapsed.Nanoseconds())/evals, "ns/loan/policy")
		})
	}
}
