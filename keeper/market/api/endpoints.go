package api

import "github.com/keeper-project/keeper/keeper/market"

// route is one endpoint: its path below the base URL, whether it is a write (takes an idempotency
// key), and whether it carries the wallet and payer headers.
type route struct {
	name   string
	path   string
	write  bool
	wallet bool
}

// routes returns every endpoint's route for the given paths.
func (p Paths) routes() []route {
	g := p.Gateway + "/"
	return []route{
		{market.EndpointUpdateStrategy, "markets/strategy/update", true, true},
		{market.EndpointBuildLoan, "markets/creditbook/build", true, true},
		{market.EndpointLoansInfo, "markets/loans/info", false, false},
		{market.EndpointTransferPosition, "markets/creditbook/collateral/" + p.DexA + "/transfer_position", true, true},
		{market.EndpointVaultDeposits, "markets/lending_vaults/deposits", false, false},
		{market.EndpointBestQuote, "markets/quote/max", false, true},
		{market.EndpointHistoricalHolders, "markets/collateral/holders/historical", false, false},
		{market.EndpointClaimFees, "markets/creditbook/collateral/" + p.DexB + "/claim_fees", true, true},
		{market.EndpointWithdrawStrategy, "markets/strategy/withdraw", true, true},
		{market.EndpointWithdrawClaim, g + "earn/vaults/withdraw_claim/tx", true, true},
		{market.EndpointVaultsInfo, "markets/lending_vaults/info", false, false},
		{market.EndpointLoopInfo, "markets/loop/info", false, false},
		{market.EndpointEarnPosition, g + p.EarnPosition, false, false},
		{market.EndpointWithdrawalQueue, g + p.EarnWithdrawQueue, false, false},
		{market.EndpointEarnWithdrawRequest, g + p.EarnWithdrawRequest, true, true},
	}
}
