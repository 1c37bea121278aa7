package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/policies"
)

// TestPlanLinesSayWhatTheActionIs: a plan's action line says what the
// action does, not the market endpoint's spec name (E2, E10).
func TestPlanLinesSayWhatTheActionIs(t *testing.T) {
	plans := []keeper.PolicyPlan{{Policy: "auto-repay", Kind: "repay", Actions: []policies.Action{
		{Kind: policies.KindRepay, Target: "Loan1", Reason: "health low", Request: policies.Request{BuildLoan: &market.BuildLoanRequest{}}},
		{Kind: policies.KindClaimWithdrawals, Target: "Req1", Reason: "filled", Request: policies.Request{WithdrawClaim: &market.WithdrawClaimRequest{}}},
		{Kind: policies.KindAlert, Target: "Loan1", Reason: "low", Alert: &policies.Alert{Severity: policies.SeverityCritical}},
	}}}
	var b bytes.Buffer
	writePlan(&b, plans)
	for _, want := range []string{"  + repay loan Loan1: health low\n", "  + claim withdrawal request Req1: filled\n", "  + alert (critical) Loan1: low\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "E2") || strings.Contains(b.String(), "E10") {
		t.Errorf("plan names endpoints:\n%s", b.String())
	}
}

// TestPlanShowsTheSaleQuote: a repay from collateral's plan line is followed by the aggregator's
// quote read at plan time, in text and in JSON.
func TestPlanShowsTheSaleQuote(t *testing.T) {
	q := keeper.SaleQuote{Mode: "ExactOut", Price: 109.6, OraclePrice: 110, Summary: "aggregator quote (read now; it may move before the action builds): sells 3.5 SOL"}
	plans := []keeper.PolicyPlan{{Policy: "deleverage", Kind: "repay", Actions: []policies.Action{
		{ID: "a1", Kind: policies.KindRepay, Target: "Loan1", Reason: "health low", Request: policies.Request{CollateralRepay: &policies.CollateralRepay{}}},
	}, SaleQuotes: map[string]keeper.SaleQuote{"a1": q}}}
	var b bytes.Buffer
	writePlan(&b, plans)
	if want := ": health low\n      " + q.Summary + "\n"; !strings.Contains(b.String(), want) {
		t.Errorf("plan lacks %q:\n%s", want, b.String())
	}
	if js := planJSON(plans); js[0].Actions[0].SaleQuote == nil || js[0].Actions[0].SaleQuote.Price != 109.6 {
		t.Errorf("JSON sale quote %+v", js[0].Actions[0].SaleQuote)
	}
}
