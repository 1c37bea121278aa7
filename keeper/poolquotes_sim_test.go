package keeper

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/policies"
)

// refinanceAlert alerts on every loan of the wallet not expected to refinance.
const refinanceAlert = `policies:
  - name: no-refinance
    kind: alert
    schedule: "@every 1m"
    select: { target: loans }
    when: "!loan.refinance_expected"
    params: { message: "loan {{.loan.address}} will not refinance" }
`

// TestPoolCollateralIsNotQuotedOnSim: over the default scenario's loans,
// two of them held by CLMM positions (pools sol-usdc-a and sol-usdc-b), a
// policy reading loan.refinance_expected makes best-quote requests for the
// token collateral only: no E6 body names a pool id (as an Spl mint or
// otherwise). The two pool loans are skipped as unknown, saying why; the
// others are evaluated.
func TestPoolCollateralIsNotQuotedOnSim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		var mu sync.Mutex
		var quotes [][]byte
		w.net.before = func(c netCall, body []byte) {
			if c.Host == simMarketHost && strings.HasSuffix(c.Path, "/markets/quote/max") {
				mu.Lock()
				quotes = append(quotes, body)
				mu.Unlock()
			}
		}
		w.writePolicy(t, "refinance.yaml", refinanceAlert)
		k := w.open(t, "")
		plans, err := k.Plan(t.Context())
		if err != nil || len(plans) != 1 || plans[0].Err != "" {
			t.Fatalf("Plan: %+v, %v", plans, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(quotes) == 0 {
			t.Fatal("no best-quote request: the token-collateral loans were not quoted")
		}
		pools := map[string]string{}
		for loan, pool := range map[string]string{"rebalance-me": "sol-usdc-a", "claim-me": "sol-usdc-b"} {
			pools[w.address(t, ids.KindLoan, loan).String()] = w.address(t, ids.KindPool, pool).String()
		}
		for _, body := range quotes {
			for _, pool := range pools {
				if bytes.Contains(body, []byte(pool)) {
					t.Errorf("best-quote request %s names pool %s", body, pool)
				}
			}
		}
		skipped := map[string]policies.Skip{}
		for _, s := range plans[0].Skipped {
			skipped[s.Target] = s
		}
		for loan, pool := range pools {
			s, ok := skipped[loan]
			if !ok || s.Reason != policies.SkipNoData || !strings.Contains(s.Detail, "loan.refinance_expected is unknown") ||
				!strings.Contains(s.Detail, "pool collateral (pool "+pool+")") {
				t.Errorf("pool loan %s: skip %+v, want no_data saying refinance_expected is unknown for pool %s", loan, s, pool)
			}
		}
		if r := plans[0].Result; r == nil || r.Evaluated <= len(pools) {
			t.Errorf("result %+v: want the token-collateral loans evaluated too", r)
		}
		for _, s := range plans[0].Skipped {
			if _, isPool := pools[s.Target]; !isPool && strings.Contains(s.Detail, "refinance_expected is unknown") {
				t.Errorf("token-collateral loan %s skipped as unknown: %s", s.Target, s.Detail)
			}
		}
	})
}
