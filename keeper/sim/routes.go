package sim

import (
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
)

// buildRoutes returns the market's routes, keyed by path below /v1/, on the stand-in paths of
// api.DefaultPaths.
func (s *Sim) buildRoutes() map[string]route {
	p := api.DefaultPaths()
	g := p.Gateway + "/"
	list := []route{
		{market.EndpointUpdateStrategy, "markets/strategy/update", true, withBody(s.updateStrategy)},
		{market.EndpointBuildLoan, "markets/creditbook/build", true, withBody(s.buildLoan)},
		{market.EndpointLoansInfo, "markets/loans/info", false, withBody(s.loansInfo)},
		{market.EndpointTransferPosition, "markets/creditbook/collateral/" + p.DexA + "/transfer_position", true, withBody(s.transferPosition)},
		{market.EndpointVaultDeposits, "markets/lending_vaults/deposits", false, withBody(s.vaultDeposits)},
		{market.EndpointBestQuote, "markets/quote/max", false, withBody(s.bestQuote)},
		{market.EndpointHistoricalHolders, "markets/collateral/holders/historical", false, withBody(s.historicalHolders)},
		{market.EndpointClaimFees, "markets/creditbook/collateral/" + p.DexB + "/claim_fees", true, withBody(s.claimFees)},
		{market.EndpointWithdrawStrategy, "markets/strategy/withdraw", true, withBody(s.withdrawStrategy)},
		{market.EndpointWithdrawClaim, g + "earn/vaults/withdraw_claim/tx", true, withBody(s.withdrawClaim)},
		{market.EndpointVaultsInfo, "markets/lending_vaults/info", false, withBody(s.vaultsInfo)},
		{market.EndpointLoopInfo, "markets/loop/info", false, withBody(s.loopInfo)},
		{market.EndpointEarnPosition, g + p.EarnPosition, false, withBody(s.earnPosition)},
		{market.EndpointWithdrawalQueue, g + p.EarnWithdrawQueue, false, withBody(s.withdrawalQueue)},
	}
	out := make(map[string]route, len(list))
	for _, r := range list {
		out[r.path] = r
	}
	return out
}

// withBody adapts a handler of one request type to a route: it decodes the call's body into a Q
// (strictly, see apiwire.DecodeBody) and serves it, or answers the decoding error.
func withBody[Q any](serve func(c *call, q Q) (any, error)) func(c *call) (any, error) {
	return func(c *call) (any, error) {
		var q Q
		if err := apiwire.DecodeBody(c.body, &q); err != nil {
			return nil, err
		}
		return serve(c, q)
	}
}
