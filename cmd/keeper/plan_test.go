package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/policies"
)

// TestPlanWarnsWhenAPolicyCanNeverAct: a repay whose max_amount is in SOL
// on USDC loans does nothing, forever: plan says so on the policy's line
// and in the summary instead of "nothing to do", and exits 1.
func TestPlanWarnsWhenAPolicyCanNeverAct(t *testing.T) {
	plans := []keeper.PolicyPlan{
		{Policy: "in-sol", Kind: "repay", Skipped: []policies.Skip{{Target: "L1", Reason: policies.SkipUnit,
			Detail: "params.max_amount 200 SOL is in SOL, but the amount is spent in USDC"}}},
		{Policy: "idle", Kind: "repay"},
	}
	for _, detailed := range []bool{false, true} {
		var out bytes.Buffer
		code := printPlan(&streams{out: &out, err: &out}, plans, false, detailed)
		if code != exitFailed {
			t.Errorf("detailed %v: exit %d, want %d", detailed, code, exitFailed)
		}
		for _, want := range []string{
			"in-sol [repay]\n  WARNING: can never act on 1 target: an amount is in another token than it spends (unit below)\n  - unit L1: params.max_amount 200 SOL",
			"idle [repay]\n  nothing to do",
			"0 actions; 1 policy nothing to do; WARNING: 1 policy can never act as written (an amount in another token)",
		} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("plan lacks %q:\n%s", want, out.String())
			}
		}
	}
	var out bytes.Buffer
	if code := printPlan(&streams{out: &out, err: &out}, plans[1:], false, false); code != exitOK {
		t.Errorf("nothing to do: exit %d", code)
	}
}
