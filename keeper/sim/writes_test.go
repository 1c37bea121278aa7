package sim

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/genesis"
)

// TestRepayLandsAndChangesReads builds a repay, signs it keeping the co-signature, sends it and
// checks the ledger, the strategy's idle principal and the wallet's tokens.
func TestRepayLandsAndChangesReads(t *testing.T) {
	e := newEnv(t, Options{})
	loan := e.addr(t, ids.KindLoan, "repay-me")
	usdc := e.addr(t, ids.KindMint, "USDC")
	beta := e.addr(t, ids.KindStrategy, "beta")
	walletBefore, betaBefore := e.sim.Accounts().TokenBalance(testWallet(), usdc), e.sim.Accounts().TokenBalance(beta, usdc)
	resp, err := e.market.BuildLoan(e.ctx, "repay-1", market.BuildLoanRequest{Loan: loan.String(), Steps: []market.Step{{
		Type: market.StepRepay, Params: market.StepParams{RepayParams: []market.RepayParam{{Amount: 200_000_000}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Loan != loan.String() || len(resp.Transactions) != 1 {
		t.Fatalf("response %+v", resp)
	}
	e.landed(t, e.send(t, signAPI(t, resp.Transactions[0], testKey)))
	item, err := e.sim.Accounts().Loan(loan)
	if err != nil {
		t.Fatal(err)
	}
	if got := item.Ledgers[0].PrincipalRepaid; got != 200_000_000 {
		t.Errorf("principalRepaid = %d, want 200000000", got)
	}
	if got := walletBefore - e.sim.Accounts().TokenBalance(testWallet(), usdc); got != 200_000_000 {
		t.Errorf("wallet paid %d, want 200000000", got)
	}
	if got := e.sim.Accounts().TokenBalance(beta, usdc) - betaBefore; got != 200_000_000 {
		t.Errorf("strategy received %d, want 200000000", got)
	}
	page, err := e.market.LoansInfo(e.ctx, market.LoansQuery{LoanAddresses: []string{loan.String()}})
	if err != nil {
		t.Fatal(err)
	}
	if got := page.Items[0].PrincipalUsd; got != 600 {
		t.Errorf("principalUsd after repay = %v, want 600", got)
	}
}

// TestTransferPositionMovesRange rebalances the dex-a position after its pool left the range.
func TestTransferPositionMovesRange(t *testing.T) {
	e := newEnv(t, Options{})
	e.advance(t, 20*time.Second)
	mint := e.addr(t, ids.KindPosition, "pos-a")
	pos, pool, err := e.sim.Accounts().Position(mint)
	if err != nil {
		t.Fatal(err)
	}
	if pos.InRange(pool) {
		t.Fatalf("pos-a still in range at tick %d: %s", pool.TickCurrent, pos.Range)
	}
	rng, err := clmm.CenteredRange(pool.TickCurrent, pool.TickSpacing, 600)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := e.market.TransferPosition(e.ctx, "rebalance-1", market.TransferPositionRequest{
		Loan: e.addr(t, ids.KindLoan, "rebalance-me").String(), PositionMint: mint.String(), SlippageDecimals: 0.5,
		TransferParams: market.TransferParams{CollateralIndex: 0, LiquidityAmount: market.Amount(pos.Liquidity.Lo),
			TickLowerIndex: rng.Lower, TickUpperIndex: rng.Upper,
			Variant: market.TransferMode{Liquidity: &market.LiquidityTransfer{SlippageToleranceBps: 50}}}})
	if err != nil {
		t.Fatal(err)
	}
	owedBefore, err := e.sim.Accounts().PositionOwed(mint)
	if err != nil || owedBefore.Fees1 == 0 || pos.FeesOwed1 != 0 {
		t.Fatalf("pos-a owes %+v (%v) and stores %d before the move; want accrued fees not yet stored", owedBefore, err, pos.FeesOwed1)
	}
	e.landed(t, e.send(t, signAPI(t, *tx, testKey)))
	after, pool, err := e.sim.Accounts().Position(mint)
	if err != nil {
		t.Fatal(err)
	}
	if after.Range != rng || after.Liquidity != pos.Liquidity || !after.InRange(pool) {
		t.Errorf("position after transfer: range %s liquidity %s, want %s and %s in range", after.Range, after.Liquidity, rng, pos.Liquidity)
	}
	// A liquidity change touches the position: what it was owed is now stored, and nothing is lost.
	if owed, err := e.sim.Accounts().PositionOwed(mint); err != nil || owed != owedBefore || after.FeesOwed0 != owedBefore.Fees0 || after.FeesOwed1 != owedBefore.Fees1 {
		t.Errorf("after the move: owed %+v (%v), stored %d/%d; want %+v owed and stored", owed, err, after.FeesOwed0, after.FeesOwed1, owedBefore)
	}
	// The pool's active liquidity now includes the position again (it left with the price at 20s).
	if want := clmm.U128From64(2_000_000_000_000 + 500_000_000_000); pool.Liquidity != want {
		t.Errorf("pool liquidity %s, want %s", pool.Liquidity, want)
	}
}

// TestClaimFeesPaysAndZeroes claims the dex-b position's fees.
func TestClaimFeesPaysAndZeroes(t *testing.T) {
	e := newEnv(t, Options{})
	e.advance(t, 25*time.Second)
	mint := e.addr(t, ids.KindPosition, "pos-b")
	pos, pool, err := e.sim.Accounts().Position(mint)
	if err != nil {
		t.Fatal(err)
	}
	// The account stores what the scenario started with; the rest accrued through the pool's fee
	// growth and is paid only after an update brings the account up to date.
	if pos.FeesOwed0 != 10_000_000 || pos.FeesOwed1 != 2_000_000 {
		t.Fatalf("fees stored %d/%d, want 10000000/2000000", pos.FeesOwed0, pos.FeesOwed1)
	}
	if owed, err := e.sim.Accounts().PositionOwed(mint); err != nil || owed.Fees0 != 160_000_000 || owed.Fees1 != 17_000_000 {
		t.Fatalf("fees owed %+v, %v; want 160000000/17000000", owed, err)
	}
	tx, err := e.market.ClaimFees(e.ctx, "claim-1", market.ClaimFeesRequest{Loan: e.addr(t, ids.KindLoan, "claim-me").String(), PositionMint: mint.String()})
	if err != nil {
		t.Fatal(err)
	}
	usdcBefore := e.sim.Accounts().TokenBalance(testWallet(), pool.Mint1)
	e.landed(t, e.send(t, signAPI(t, *tx, testKey)))
	after, _, _ := e.sim.Accounts().Position(mint)
	if after.FeesOwed0 != 0 || after.FeesOwed1 != 0 {
		t.Errorf("fees after claim %d/%d, want 0/0", after.FeesOwed0, after.FeesOwed1)
	}
	// Fees are paid; the JTO rewards are not (claim_fees collects fees only), but the fee update
	// before the collection stored what they had reached.
	if owed, err := e.sim.Accounts().PositionOwed(mint); err != nil || owed.Fees0 != 0 || owed.Fees1 != 0 ||
		owed.Rewards[0] == 0 || owed.Rewards[0] != after.Rewards[0].Owed {
		t.Errorf("owed after claim %+v, %v, stored rewards %d; want no fees and the rewards stored", owed, err, after.Rewards[0].Owed)
	}
	if got := e.sim.Accounts().TokenBalance(testWallet(), pool.Mint0); got != 160_000_000 {
		t.Errorf("SOL fees received %d, want 160000000", got)
	}
	if got := e.sim.Accounts().TokenBalance(testWallet(), pool.Mint1) - usdcBefore; got != 17_000_000 {
		t.Errorf("USDC fees received %d, want 17000000", got)
	}
}

// TestStrategyUpdateSplitsAndApplies sends a large update that comes back as several transactions
// and checks that every term changed once all landed.
func TestStrategyUpdateSplitsAndApplies(t *testing.T) {
	e := newEnv(t, Options{})
	alpha := e.addr(t, ids.KindStrategy, "alpha")
	sol := e.addr(t, ids.KindMint, "SOL").String()
	apys := map[market.StrategyDuration]market.CBPS{}
	for d := int32(1); d <= 40; d++ {
		apys[market.StrategyDuration{DurationType: market.DurationDays, Duration: d}] = market.CBPS(100_000 + d)
	}
	enabled := false
	txs, err := e.market.UpdateStrategy(e.ctx, "update-1", market.StrategyUpdateRequest{Strategy: alpha.String(),
		CollateralTerms: &market.CollateralTerms{UpdateCollateral: map[string]market.CollateralParamsUpdate{
			sol: {ApyUpdate: market.DurationAPYs(apys)}},
			UpdateAssetAllocation: []market.AssetAllocation{{AssetIdentifier: sol, MaxAllocationPct: "40"}}},
		UpdateParams: &market.UpdateParams{OriginationsEnabled: &enabled}})
	if err != nil {
		t.Fatal(err)
	}
	if len(txs) < 2 {
		t.Fatalf("a 42-item update came back as %d transaction(s), want several", len(txs))
	}
	// A later step depends on the one before: sent first, it fails (here in
	// the send's preflight simulation).
	if _, err := e.rpc.SendRawTransactionWithOpts(e.ctx, signAPI(t, txs[1], testKey),
		rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed}); err == nil {
		t.Fatal("the second step of a split update was accepted before the first")
	}
	for _, tx := range txs {
		e.landed(t, e.send(t, signAPI(t, tx, testKey)))
	}
	vs, err := e.sim.Accounts().Strategy(alpha)
	if err != nil {
		t.Fatal(err)
	}
	term := vs.CollateralTerms[0]
	key := market.StrategyDuration{DurationType: market.DurationDays, Duration: 40}.Key()
	if term.DurationsAndApys[key] != 100_040 || term.MaxAllocationPct != "40" || vs.Strategy.OriginationsEnabled {
		t.Errorf("after update: apy(40d) %d, cap %q, originations %v", term.DurationsAndApys[key], term.MaxAllocationPct, vs.Strategy.OriginationsEnabled)
	}
	if len(term.DurationsAndApys) != 40 {
		t.Errorf("%d durations, want 40 (1d..40d, which include 7d and 30d)", len(term.DurationsAndApys))
	}
}

// TestStrategyWithdrawPaysAuthority sweeps idle principal to the authority.
func TestStrategyWithdrawPaysAuthority(t *testing.T) {
	e := newEnv(t, Options{})
	alpha, usdc := e.addr(t, ids.KindStrategy, "alpha"), e.addr(t, ids.KindMint, "USDC")
	before := e.sim.Accounts().TokenBalance(testWallet(), usdc)
	tx, err := e.market.WithdrawFromStrategy(e.ctx, "withdraw-1", market.WithdrawStrategyRequest{Amount: 40_000_000_000, Strategy: alpha.String()})
	if err != nil {
		t.Fatal(err)
	}
	e.landed(t, e.send(t, signAPI(t, *tx, testKey)))
	if got := e.sim.Accounts().TokenBalance(testWallet(), usdc) - before; got != 40_000_000_000 {
		t.Errorf("authority received %d, want 40000000000", got)
	}
	vs, _ := e.sim.Accounts().Strategy(alpha)
	if vs.Strategy.TokenBalance != 20_000_000_000 {
		t.Errorf("idle after withdraw %d, want 20000000000", vs.Strategy.TokenBalance)
	}
}

// TestWithdrawClaimBundle claims a filled request as a Jito bundle with a tip, then checks that the
// request is claimed, that building a second claim answers 400 "request account not found", and
// that a claim built before the first landed fails on chain with the same reason.
func TestWithdrawClaimBundle(t *testing.T) {
	e := newEnv(t, Options{})
	e.advance(t, 20*time.Second)
	vault, req := e.addr(t, ids.KindEarn, "usdc-earn"), e.addr(t, ids.KindRequest, "usdc-earn/r-full")
	usdc := e.addr(t, ids.KindMint, "USDC")
	before := e.sim.Accounts().TokenBalance(testWallet(), usdc)
	claim := market.WithdrawClaimRequest{Address: vault.String(), Wallet: testWallet().String(), RequestID: req.String()}
	resp, err := e.market.ClaimEarnWithdrawal(e.ctx, "claim-w-1", claim)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Action != market.EarnActionWithdrawClaim || resp.RequestID != req.String() || resp.Amount == nil ||
		*resp.Amount != 300_000_000 || len(resp.TxBase64s) != 1 {
		t.Fatalf("response %+v", resp)
	}
	e.advance(t, time.Second)
	early, err := e.market.ClaimEarnWithdrawal(e.ctx, "claim-w-early", claim)
	if err != nil {
		t.Fatal(err)
	}
	id := e.sendBundle(t, [][]byte{signWire(t, resp.TxBase64s[0], testKey), e.tipTx(t, 10_000)})
	e.advance(t, time.Second)
	if st := e.sim.Chain().Bundles.Status(id); st.State != chainsim.BundleLanded {
		t.Fatalf("bundle status %+v", st)
	}
	if got := e.sim.Accounts().TokenBalance(testWallet(), usdc) - before; got != 300_000_000 {
		t.Errorf("wallet received %d, want 300000000", got)
	}
	if wr, _ := e.sim.Accounts().WithdrawalRequest(req); asClient[market.WithdrawalRequest](t, wr).State() != market.WithdrawalClaimed {
		t.Errorf("request state %s, want claimed", asClient[market.WithdrawalRequest](t, wr).State())
	}
	_, err = e.market.ClaimEarnWithdrawal(e.ctx, "claim-w-2", claim)
	if err == nil || !strings.Contains(err.Error(), "request account not found") {
		t.Errorf("second claim: %v, want 400 request account not found", err)
	}
	sig, err := e.rpc.SendRawTransactionWithOpts(e.ctx, signWire(t, early.TxBase64s[0], testKey), rpc.TransactionOpts{SkipPreflight: true})
	if err != nil {
		t.Fatal(err)
	}
	l, ok := e.sim.Chain().Ledger.Transaction(sig)
	if !ok || l.Err == nil || !strings.Contains(strings.Join(l.Logs, "\n"), "request account not found") {
		t.Errorf("early claim landed %v with err %v, logs %q; want a failure logging request account not found", ok, l.Err, l.Logs)
	}
}

// payerKey is a second test key, paying fees for the wallet.
var payerKey = ed25519.NewKeyFromSeed(ids.Sha256Bytes("keeper/sim test payer"))

// claimScenario has a filled request of a wallet that holds no token account of the vault's mint,
// and a payer wallet.
var claimScenario = fmt.Sprintf(`
mints:
  - {symbol: USDC, decimals: 6, price: 1}
wallets:
  - {name: payer, address: %s, fund: {sol: "1"}}
earn:
  - name: e
    mint: USDC
    reserves: "100"
    requests:
      - {name: r, wallet: $wallet, requested: "5", filled: "5"}
`, ids.PublicKeyOf(payerKey))

// TestWithdrawClaimCreatesTokenAccount claims into a wallet without a token account: the bundle
// creates it first.
func TestWithdrawClaimCreatesTokenAccount(t *testing.T) {
	sc, err := ParseScenario("claim.yaml", []byte(claimScenario))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{Scenario: sc})
	resp, err := e.market.ClaimEarnWithdrawal(e.ctx, "c-1", market.WithdrawClaimRequest{Address: e.addr(t, ids.KindEarn, "e").String(),
		Wallet: testWallet().String(), RequestID: e.addr(t, ids.KindRequest, "e/r").String()})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.TxBase64s) != 2 {
		t.Fatalf("%d transactions, want the token account's and the claim", len(resp.TxBase64s))
	}
	lamports := e.sim.Accounts().Balance(testWallet())
	id := e.sendBundle(t, [][]byte{signWire(t, resp.TxBase64s[0], testKey), signWire(t, resp.TxBase64s[1], testKey), e.tipTx(t, 5_000)})
	e.advance(t, time.Second)
	if st := e.sim.Chain().Bundles.Status(id); st.State != chainsim.BundleLanded {
		t.Fatalf("bundle %+v", st)
	}
	if got := e.sim.Accounts().TokenBalance(testWallet(), e.addr(t, ids.KindMint, "USDC")); got != 5_000_000 {
		t.Errorf("wallet holds %d, want 5000000", got)
	}
	// Rent of the new token account out, the request account's rent back, the fees of four signatures
	// (one on the token-account transaction, the wallet's and the co-signer's on the claim, one on the
	// tip) and the tip.
	if want := lamports - 2_039_280 + genesis.EarnRequestRent - 4*5000 - 5_000; e.sim.Accounts().Balance(testWallet()) != want {
		t.Errorf("wallet lamports %d, want %d", e.sim.Accounts().Balance(testWallet()), want)
	}
}

// TestPayerHeaderPaysFees builds with a payer header: the payer is the fee payer and both sign.
func TestPayerHeaderPaysFees(t *testing.T) {
	sc, err := ParseScenario("claim.yaml", []byte(claimScenario))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{Scenario: sc})
	mc, err := api.New(api.Options{BaseURL: e.urls.Market, Wallet: testWallet().String(), Payer: ids.PublicKeyOf(payerKey).String()})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := mc.ClaimEarnWithdrawal(e.ctx, "c-1", market.WithdrawClaimRequest{Address: e.addr(t, ids.KindEarn, "e").String(),
		Wallet: testWallet().String(), RequestID: e.addr(t, ids.KindRequest, "e/r").String()})
	if err != nil {
		t.Fatal(err)
	}
	payerBefore, walletBefore := e.sim.Accounts().Balance(ids.PublicKeyOf(payerKey)), e.sim.Accounts().Balance(testWallet())
	for _, b64 := range resp.TxBase64s {
		e.landed(t, e.send(t, signWire(t, b64, testKey, payerKey)))
	}
	// The token account's rent, and the fees of the payer's signature on the first transaction and of
	// the payer's, the wallet's and the co-signer's on the claim.
	if got := payerBefore - e.sim.Accounts().Balance(ids.PublicKeyOf(payerKey)); got != 2_039_280+4*5000 {
		t.Errorf("payer spent %d lamports, want the token account's rent and the fees", got)
	}
	if got := e.sim.Accounts().Balance(testWallet()) - walletBefore; got != genesis.EarnRequestRent {
		t.Errorf("wallet gained %d lamports, want the request's rent %d", got, genesis.EarnRequestRent)
	}
}

// TestRepayAllWithdrawAndClose repays a loan in full, takes the collateral back and closes the loan
// in one transaction; the history then shows the removal.
func TestRepayAllWithdrawAndClose(t *testing.T) {
	e := newEnv(t, Options{})
	loan, sol := e.addr(t, ids.KindLoan, "repay-me"), e.addr(t, ids.KindMint, "SOL")
	resp, err := e.market.BuildLoan(e.ctx, "close-1", market.BuildLoanRequest{Loan: loan.String(), Steps: []market.Step{{
		Type: market.StepRepay, Params: market.StepParams{RepayParams: []market.RepayParam{{RepayAll: true}},
			CollateralWithdrawalParams: []market.CollateralWithdrawal{{Amount: 10_000_000_000, CollateralMint: sol.String()}},
			CloseIfPossible:            ptr(true)}}}})
	if err != nil {
		t.Fatal(err)
	}
	e.landed(t, e.send(t, signAPI(t, resp.Transactions[0], testKey)))
	item, err := e.sim.Accounts().Loan(loan)
	if err != nil {
		t.Fatal(err)
	}
	if !item.Loan.Closed || item.Ledgers[0].PrincipalDue != item.Ledgers[0].PrincipalRepaid || item.Ledgers[0].InterestOutstanding != 0 || item.Collateral[0].Amount != 0 {
		t.Errorf("after closing: %+v", item)
	}
	if got := e.sim.Accounts().TokenBalance(testWallet(), sol); got != 10_000_000_000 {
		t.Errorf("wallet holds %d SOL base units, want the 10 SOL collateral", got)
	}
	start := market.UnixTime(e.sim.StartTime().Unix())
	h, err := e.market.HistoricalHolders(e.ctx, market.HoldersRequest{Mint: sol.String(), RangeStart: start, RangeEnd: start + 100, Pdas: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := h[0].UserDepositSeconds[loan.String()]; got.Float64() != 0 {
		t.Errorf("deposit-seconds after the removal at the start: %v, want 0", got)
	}
}

// TestSignaturesRequired sends a built transaction without the wallet's signature and with a forged
// co-signature: preflight refuses both, and without preflight neither lands.
func TestSignaturesRequired(t *testing.T) {
	e := newEnv(t, Options{})
	tx, err := e.market.WithdrawFromStrategy(e.ctx, "w-1", market.WithdrawStrategyRequest{Amount: 1, Strategy: e.addr(t, ids.KindStrategy, "alpha").String()})
	if err != nil {
		t.Fatal(err)
	}
	unsigned := signAPI(t, *tx)
	forged := *tx
	forged.Signatures = []market.Signature{{PublicKey: ids.CoSigner().String(),
		Signature: base64.StdEncoding.EncodeToString(ed25519.Sign(testKey, []byte("other bytes")))}}
	for name, wire := range map[string][]byte{"unsigned": unsigned, "forged co-signature": signAPI(t, forged, testKey)} {
		if _, err := e.rpc.SendRawTransactionWithOpts(e.ctx, wire, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed}); err == nil {
			t.Errorf("%s transaction passed preflight", name)
		}
		sig, err := e.rpc.SendRawTransactionWithOpts(e.ctx, wire, rpc.TransactionOpts{SkipPreflight: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, landed := e.sim.Chain().Ledger.Transaction(sig); landed {
			t.Errorf("%s transaction landed", name)
		}
	}
}
