package policies

import (
	"reflect"
	"testing"

	"github.com/keeper-project/keeper/keeper/market"
)

func TestReads(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  Reads
	}{{
		name:  "repay sends its borrowers (default the wallet), not its mint filters",
		lines: []string{"kind: repay", "select: {principal_mints: [" + usdc + "], collateral_identifiers: [" + coll + "]}", "params: {trigger_health: 0.1, target_health: 0.2, max_amount: 1}"},
		want:  Reads{Loans: &market.LoansQuery{Borrowers: []string{wallet}}},
	}, {
		name:  "repay near the end of term needs quotes",
		lines: []string{"kind: repay", "select: {borrowers: [" + key("b") + "]}", "params: {trigger_health: 0.1, target_health: 0.2, max_amount: 1, repay_all_within: 1h}"},
		want:  Reads{Loans: &market.LoansQuery{Borrowers: []string{key("b")}}, Quotes: true},
	}, {
		name:  "an expression on refinance_expected needs quotes",
		lines: []string{"kind: alert", "select: {target: loans, loans: [" + key("a") + "]}", "when: '!loan.refinance_expected'", "params: {message: m}"},
		want:  Reads{Loans: &market.LoansQuery{LoanAddresses: []string{key("a")}, Borrowers: []string{wallet}}, Quotes: true},
	}, {
		name:  "positions",
		lines: []string{"kind: claim-fees", "params: {min_fees_0: 1}"},
		want:  Reads{Loans: &market.LoansQuery{Borrowers: []string{wallet}}, Positions: true},
	}, {
		name:  "claim-fees by value needs prices",
		lines: []string{"kind: claim-fees", "params: {min_value_usd: 5}"},
		want:  Reads{Loans: &market.LoansQuery{Borrowers: []string{wallet}}, Positions: true, PositionValues: true},
	}, {
		name:  "an expression on fees_owed_usd needs prices",
		lines: []string{"kind: alert", "select: {target: positions}", "when: position.fees_owed_usd > 100", "params: {message: m}"},
		want:  Reads{Loans: &market.LoansQuery{Borrowers: []string{wallet}}, Positions: true, PositionValues: true},
	}, {
		name:  "withdrawals",
		lines: []string{"kind: claim-withdrawals", "select: {vaults: [" + earnVault + "]}"},
		want:  Reads{EarnVaults: []string{earnVault}},
	}, {
		name:  "strategy update",
		lines: []string{"kind: strategy-update", "params: {originations_enabled: 'true'}"},
		want:  Reads{Vaults: true, Quotes: true},
	}, {
		name:  "strategy withdraw",
		lines: []string{"kind: strategy-withdraw", "params: {buffer: 0}"},
		want:  Reads{Vaults: true},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parseOne(t, policyYAML(append([]string{"name: p", `schedule: "@hourly"`}, tc.lines...)...))
			if got := p.Reads(wallet); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("reads = %+v\n want %+v", got, tc.want)
			}
		})
	}
}
