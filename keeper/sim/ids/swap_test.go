package ids

import "testing"

func TestSwapProgramID(t *testing.T) {
	if got := SwapProgramID.String(); got != "SimSwap111111111111111111111111111111111111" {
		t.Fatalf("SwapProgramID = %s", got)
	}
	if a, b := AMMPool("sol-usdc"), AMMPool("other"); a == b || a.IsOnCurve() {
		t.Fatalf("AMM pools %s %s: not distinct PDAs", a, b)
	}
}
