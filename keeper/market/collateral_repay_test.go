package market

import "testing"

func TestCollateralRepayLayoutSteps(t *testing.T) {
	r := CollateralRepay{Loan: "L", LedgerIndex: 1, Debt: 100, CollateralMint: "SOL", Withdraw: 7,
		Setup: []Instruction{{ProgramID: "ata"}}, Swap: []Instruction{{ProgramID: "jup"}}, Luts: []string{"lut"}}
	steps, err := DefaultCollateralRepayLayout().Steps(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 || steps[0].Type != StepFlashBorrow || steps[1].Type != StepRepay || steps[2].Type != StepSwapCollateral {
		t.Fatalf("default steps %+v", steps)
	}
	if rp := steps[0].Params.RepayParams; len(rp) != 1 || rp[0].Amount != 100 || rp[0].LedgerIndex != 1 {
		t.Errorf("flashBorrow params %+v", rp)
	}
	sw := steps[2].Params
	if len(sw.SetupIxs) != 1 || len(sw.CpiIxs) != 1 || len(sw.CpiLuts) != 1 || sw.SetupLuts != nil || sw.CollateralWithdrawalParams[0].Amount != 7 {
		t.Errorf("swapCollateral params %+v", sw)
	}
	steps, _ = CollateralRepayLayout{LutsInSetup: true, SetupInCpi: true}.Steps(r)
	if len(steps) != 2 || steps[0].Type != StepSwapCollateral || steps[1].Type != StepRepay {
		t.Fatalf("no-flash steps %+v", steps)
	}
	if sw := steps[0].Params; len(sw.SetupIxs) != 0 || len(sw.CpiIxs) != 2 || len(sw.SetupLuts) != 1 || sw.CpiLuts != nil {
		t.Errorf("overridden swapCollateral params %+v", sw)
	}
	if _, err := DefaultCollateralRepayLayout().Steps(CollateralRepay{Debt: 1}); err == nil {
		t.Error("an empty collateral repay gave steps")
	}
}
