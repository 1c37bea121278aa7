package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/keeper/report"
)

// TestDepositorsTableCountsInTheRightNumber: one depositor, not "1
// depositors".
func TestDepositorsTableCountsInTheRightNumber(t *testing.T) {
	var out bytes.Buffer
	o := reportOutput{s: &streams{out: &out, err: &out}, format: "table"}
	r := &keeper.DepositorsReport{Vaults: []report.VaultDepositors{
		{Vault: "V1", Total: 5, Users: []report.Depositor{{User: "U", Supplied: 5, Fraction: 1}}},
		{Vault: "V2", Total: 5, Users: []report.Depositor{{User: "U", Supplied: 2, Fraction: 0.4}, {User: "X", Supplied: 3, Fraction: 0.6}}},
	}}
	if err := o.depositors(r, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), " from 1 depositor\n") || !strings.Contains(out.String(), " from 2 depositors\n") {
		t.Errorf("depositors table:\n%s", out.String())
	}
}
