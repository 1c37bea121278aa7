package sim

import (
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
)

// TestLoansInfoCacheFollowsState: loans-info answers from its cache only while the chain's
// accounts, the oracle prices and the valuation second are the same; each of them changing shows
// at once.
func TestLoansInfoCacheFollowsState(t *testing.T) {
	e := newEnv(t, Options{})
	loan, _ := e.sim.Address(ids.KindLoan, "repay-me")
	read := func() market.LoanItem {
		t.Helper()
		page, err := e.market.LoansInfo(e.ctx, market.LoansQuery{LoanAddresses: []string{loan.String()}})
		if err != nil || len(page.Items) != 1 {
			t.Fatalf("loans-info: %d items, %v", len(page.Items), err)
		}
		return page.Items[0]
	}
	first := read()
	if again := read(); again.CollateralUsd != first.CollateralUsd || again.InterestAccruedUsd != first.InterestAccruedUsd {
		t.Errorf("same state, different answers: %+v then %+v", first, again)
	}
	e.advance(t, 10*time.Second) // SOL falls from 150 to 110 at 10 s
	fell := read()
	if fell.CollateralUsd >= first.CollateralUsd || fell.InterestAccruedUsd <= first.InterestAccruedUsd {
		t.Errorf("after the oracle event and 10 s: collateral %v → %v USD, interest %v → %v", first.CollateralUsd, fell.CollateralUsd,
			first.InterestAccruedUsd, fell.InterestAccruedUsd)
	}
	// A write to the loan's account (as a landed transaction would make) at the same second and
	// prices: the next read shows it.
	err := e.sim.Chain().UpdateAccount(loan, func(a svm.Account, _ bool) (svm.Account, error) {
		st, err := state.DecodeLoan(a.Data)
		if err != nil {
			return a, err
		}
		st.Collateral[0].Amount /= 2
		a.Data, err = state.EncodeLoan(st)
		return a, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if halved := read(); halved.CollateralUsd >= fell.CollateralUsd*0.51 {
		t.Errorf("after halving the collateral on chain: %v USD, was %v", halved.CollateralUsd, fell.CollateralUsd)
	}
}
