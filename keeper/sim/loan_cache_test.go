package sim

import (
	"testing"
	"time"
	"unsafe"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
)

// TestLoansInfoCacheFollowsState: loans-info answers from its cache only while the chain's
// accounts, the oracle prices and the valuation second are the same; each of them changing shows
// at once.
func TestLoansInfoCacheFollowsState(t *testing.T) {
	e := newEnv(t, Options{})
	loan, _ := e.sim.Accounts().Address(ids.KindLoan, "repay-me")
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
	err := e.sim.Chain().State.UpdateAccount(loan, func(a svm.Account, _ bool) (svm.Account, error) {
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

// TestLoansRevaluedWithoutBase58: valuing the loans again in a later second of the same chain state
// reuses the loans' base58 addresses instead of encoding them again (two thirds of a revaluation of
// 10,000 loans was base58, held under the market's lock while every request waited), and still
// values them at the new second.
func TestLoansRevaluedWithoutBase58(t *testing.T) {
	e := newEnv(t, Options{})
	s := e.sim
	list := func() *loanListing {
		t.Helper()
		prices := s.w.Prices.Load()
		l, err := s.accounts.views.listing(apiwire.LoansQuery{}, &programs.Snapshot{W: s.w, Prices: *prices, At: s.clock.Now()}, prices)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	first := list()
	version := s.chain.State.Version()
	e.advance(t, time.Second)
	second := list()
	if s.chain.State.Version() != version {
		t.Fatal("the chain's state changed within the second; the test needs it unchanged")
	}
	if len(first.views) == 0 || len(second.views) != len(first.views) {
		t.Fatalf("%d loans, then %d", len(first.views), len(second.views))
	}
	accrued := false
	for i, v := range second.views {
		was := first.views[i]
		if v == was {
			t.Fatal("the loans were not valued again in the later second")
		}
		if v.item.Loan.Address != was.item.Loan.Address {
			t.Fatalf("loan %d: %s, was %s", i, v.item.Loan.Address, was.item.Loan.Address)
		}
		if unsafe.StringData(v.item.Loan.Address) != unsafe.StringData(was.item.Loan.Address) {
			t.Errorf("loan %s: its address was encoded again", v.item.Loan.Address)
		}
		for _, l := range v.item.Ledgers {
			if unsafe.StringData(l.Loan) != unsafe.StringData(was.item.Loan.Address) {
				t.Errorf("loan %s, ledger %d: its loan address was encoded again", v.item.Loan.Address, l.LedgerIndex)
			}
		}
		accrued = accrued || v.item.InterestAccruedUsd > was.item.InterestAccruedUsd
	}
	if !accrued {
		t.Error("no loan accrued interest over the second")
	}
}
