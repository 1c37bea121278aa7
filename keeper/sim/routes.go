package sim

import (
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
)

// buildRoutes returns the market's routes, keyed by path below /v1/, on the stand-in paths of
// api.DefaultPaths.
func (s *Sim) buildRoutes() map[string]route {
	p := api.DefaultPaths()
	g := p.Gateway + "/"
	list := []route{
		{market.EndpointUpdateStrategy, "markets/strategy/update", true, s.updateStrategy},
		{market.EndpointBuildLoan, "markets/creditbook/build", true, s.buildLoan},
		{market.EndpointLoansInfo, "markets/loans/info", false, s.loansInfo},
		{market.EndpointTransferPosition, "markets/creditbook/collateral/" + p.DexA + "/transfer_position", true, s.transferPosition},
		{market.EndpointVaultDeposits, "markets/lending_vaults/deposits", false, s.vaultDeposits},
		{market.EndpointBestQuote, "markets/quote/max", false, s.bestQuote},
		{market.EndpointHistoricalHolders, "markets/collateral/holders/historical", false, s.historicalHolders},
		{market.EndpointClaimFees, "markets/creditbook/collateral/" + p.DexB + "/claim_fees", true, s.claimFees},
		{market.EndpointWithdrawStrategy, "markets/strategy/withdraw", true, s.withdrawStrategy},
		{market.EndpointWithdrawClaim, g + "earn/vaults/withdraw_claim/tx", true, s.withdrawClaim},
		{market.EndpointVaultsInfo, "markets/lending_vaults/info", false, s.vaultsInfo},
		{market.EndpointLoopInfo, "markets/loop/info", false, s.loopInfo},
		{market.EndpointEarnPosition, g + p.EarnPosition, false, s.earnPosition},
		{market.EndpointWithdrawalQueue, g + p.EarnWithdrawQueue, false, s.withdrawalQueue},
	}
	out := make(map[string]route, len(list))
	for _, r := range list {
		out[r.path] = r
	}
	return out
}
