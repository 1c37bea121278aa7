package sim

import (
	"strings"
	"testing"

	"github.com/keeper-project/keeper/keeper/jupiter"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// ammEnv starts the default scenario with a SOL/USDC pool of depth solReserve at the oracle price.
func ammEnv(t *testing.T, amm scenario.AMMSpec) (*env, *jupiter.Client) {
	t.Helper()
	sc, err := DefaultScenario()
	if err != nil {
		t.Fatal(err)
	}
	sc.AMMs = append(sc.AMMs, amm)
	e := newEnv(t, Options{Scenario: sc})
	jc, err := jupiter.New(jupiter.Options{BaseURL: e.urls.Market + JupiterPrefix})
	if err != nil {
		t.Fatal(err)
	}
	return e, jc
}

// collateralRepay quotes selling sol lamports of repay-me's SOL and asks E2 to repay debt with it.
func collateralRepay(t *testing.T, e *env, jc *jupiter.Client, key market.IdempotencyKey, sol, debt uint64, layout market.CollateralRepayLayout) (*market.BuildLoanResponse, error) {
	t.Helper()
	solMint, usdc := e.addr(t, ids.KindMint, "SOL"), e.addr(t, ids.KindMint, "USDC")
	q, err := jc.Quote(e.ctx, jupiter.QuoteRequest{InputMint: solMint.String(), OutputMint: usdc.String(), Amount: sol, SlippageBps: 100})
	if err != nil {
		t.Fatal(err)
	}
	return collateralRepayQuote(t, e, jc, key, q, sol, debt, layout)
}

// collateralRepayQuote asks E2 to repay debt of repay-me by withdrawing withdraw of its SOL and
// swapping it as quote q says.
func collateralRepayQuote(t *testing.T, e *env, jc *jupiter.Client, key market.IdempotencyKey, q *jupiter.Quote, withdraw, debt uint64, layout market.CollateralRepayLayout) (*market.BuildLoanResponse, error) {
	t.Helper()
	solMint := e.addr(t, ids.KindMint, "SOL")
	sw, err := jc.SwapInstructions(e.ctx, jupiter.SwapRequest{Quote: q, UserPublicKey: testWallet().String()})
	if err != nil {
		t.Fatal(err)
	}
	loan := e.addr(t, ids.KindLoan, "repay-me")
	steps, err := layout.Steps(market.CollateralRepay{Loan: loan.String(), Debt: market.Amount(debt), CollateralMint: solMint.String(),
		Withdraw: market.Amount(withdraw), Setup: sw.SetupInstructions, Swap: sw.Swap(), Luts: sw.AddressLookupTableAddresses})
	if err != nil {
		t.Fatal(err)
	}
	return e.market.BuildLoan(e.ctx, key, market.BuildLoanRequest{Loan: loan.String(), Steps: steps})
}

// TestCollateralRepayLands sells 1 SOL through the pool to repay 140 USDC of repay-me in one
// transaction, with and without the flash loan: the ledger falls by the debt, the loan's SOL by the
// amount sold, the pool moves, and the wallet keeps its USDC plus the swap's surplus.
func TestCollateralRepayLands(t *testing.T) {
	for _, flash := range []bool{true, false} {
		e, jc := ammEnv(t, scenario.AMMSpec{Name: "sol-usdc", Base: "SOL", Quote: "USDC", BaseReserve: 10000, FeeBps: 30})
		usdc := e.addr(t, ids.KindMint, "USDC")
		usdcBefore := e.sim.Accounts().TokenBalance(testWallet(), usdc)
		resp, err := collateralRepay(t, e, jc, "c1", 1e9, 140e6, market.CollateralRepayLayout{FlashBorrow: flash})
		if err != nil {
			t.Fatalf("flash %v: %v", flash, err)
		}
		e.landed(t, e.send(t, signAPI(t, resp.Transactions[0], testKey)))
		item, err := e.sim.Accounts().Loan(e.addr(t, ids.KindLoan, "repay-me"))
		if err != nil {
			t.Fatal(err)
		}
		if got := item.Ledgers[0].PrincipalRepaid; got != 140e6 {
			t.Errorf("flash %v: principalRepaid = %d, want 140000000", flash, got)
		}
		if got := item.Collateral[0].Amount; got != 9e9 {
			t.Errorf("flash %v: collateral = %d, want 9 SOL", flash, got)
		}
		// 1 SOL at 150 less 0.3 % fee and a 0.01 % impact: about 149.5 USDC, 140 of which repaid.
		if got := int64(e.sim.Accounts().TokenBalance(testWallet(), usdc)) - int64(usdcBefore); got < 9e6 || got > 10e6 {
			t.Errorf("flash %v: wallet USDC changed by %d, want the swap's surplus of about 9.5 USDC", flash, got)
		}
	}
}

// TestCollateralRepayRefusals: the chain refuses a flash loan that is not repaid in the
// transaction, a swap whose pool moved below the quote's minimum, and a withdrawal that would leave
// the loan liquidatable; E2 refuses lookup tables the simulator does not have.
func TestCollateralRepayRefusals(t *testing.T) {
	e, jc := ammEnv(t, scenario.AMMSpec{Name: "sol-usdc", Base: "SOL", Quote: "USDC", BaseReserve: 10000, FeeBps: 30})
	loan := e.addr(t, ids.KindLoan, "repay-me")
	// A flash loan alone: no repayment follows.
	resp, err := e.market.BuildLoan(e.ctx, "flash-only", market.BuildLoanRequest{Loan: loan.String(), Steps: []market.Step{
		{Type: market.StepFlashBorrow, Params: market.StepParams{RepayParams: []market.RepayParam{{Amount: 100e6}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.rpc.SendRawTransaction(e.ctx, signAPI(t, resp.Transactions[0], testKey)); err == nil || !strings.Contains(err.Error(), "6030") {
		t.Errorf("unrepaid flash loan: err = %v, want custom error 6030", err)
	}
	// The price moves between quote and swap: the pool now pays 100 USDC per SOL.
	resp, err = collateralRepay(t, e, jc, "c2", 1e9, 140e6, market.DefaultCollateralRepayLayout())
	if err != nil {
		t.Fatal(err)
	}
	if err := e.sim.SetAMM("sol-usdc", 10000, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := e.rpc.SendRawTransaction(e.ctx, signAPI(t, resp.Transactions[0], testKey)); err == nil || !strings.Contains(err.Error(), "6020") {
		t.Errorf("moved price: err = %v, want the swap's slippage error 6020", err)
	}
	// Withdrawing all 10 SOL while 660 USDC stays owed leaves the loan liquidatable.
	if err := e.sim.SetAMM("sol-usdc", 10000, 150); err != nil {
		t.Fatal(err)
	}
	resp, err = collateralRepay(t, e, jc, "c3", 10e9, 140e6, market.DefaultCollateralRepayLayout())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.rpc.SendRawTransaction(e.ctx, signAPI(t, resp.Transactions[0], testKey)); err == nil || !strings.Contains(err.Error(), "6032") {
		t.Errorf("over-withdrawal: err = %v, want 6032", err)
	}
	_, err = e.market.BuildLoan(e.ctx, "luts", market.BuildLoanRequest{Loan: loan.String(), Steps: []market.Step{{Type: market.StepSwapCollateral,
		Params: market.StepParams{CollateralWithdrawalParams: []market.CollateralWithdrawal{{Amount: 1, CollateralMint: e.addr(t, ids.KindMint, "SOL").String()}},
			CpiIxs: []market.Instruction{{ProgramID: ids.SwapProgramID.String()}}, CpiLuts: []string{"x"}}}}})
	if err == nil || !strings.Contains(err.Error(), "lookup table") {
		t.Errorf("luts: err = %v", err)
	}
}

// TestJupiterQuoteFollowsDepthAndSkew: a thinner pool quotes less for the same sale, and a skewed
// pool promises more than it pays.
func TestJupiterQuoteFollowsDepthAndSkew(t *testing.T) {
	e, jc := ammEnv(t, scenario.AMMSpec{Name: "sol-usdc", Base: "SOL", Quote: "USDC", BaseReserve: 10000, Price: 150, QuoteSkewBps: 500})
	sol, usdc := e.addr(t, ids.KindMint, "SOL").String(), e.addr(t, ids.KindMint, "USDC").String()
	quote := func() *jupiter.Quote {
		q, err := jc.Quote(e.ctx, jupiter.QuoteRequest{InputMint: sol, OutputMint: usdc, Amount: 10e9, SlippageBps: 50})
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	deep := quote()
	// 10 SOL into 10000 pays 1498.5 USDC; the skew promises 5 % more.
	if got := deep.OutAmount.Uint64(); got < 1570e6 || got > 1575e6 {
		t.Errorf("skewed quote out = %d, want about 1573 USDC", got)
	}
	if err := e.sim.SetAMM("sol-usdc", 20, 150); err != nil {
		t.Fatal(err)
	}
	thin := quote()
	if thin.OutAmount >= deep.OutAmount*7/10 || thin.PriceImpactPct < 0.3 {
		t.Errorf("thin pool quote %d (impact %v) vs deep %d", thin.OutAmount, thin.PriceImpactPct, deep.OutAmount)
	}
}
