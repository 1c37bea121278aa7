package sim

import (
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
)

// endpoints is what the market's endpoints share: the world, the views of its loans and strategies and the
// builder of the transactions its writes answer. It has no methods: the per-resource services below
// hold it and serve the endpoints.
type endpoints struct {
	*world
	views *views
	tx    *txBuilder
}

// loansAPI serves the loan endpoints: loans-info, build-loan and the historical holders of collateral.
type loansAPI struct{ *endpoints }

// positionsAPI serves the endpoints of CLMM positions held as collateral: transfer-position and
// claim-fees.
type positionsAPI struct{ *endpoints }

// strategiesAPI serves the writes of a strategy's authority: update-strategy and withdraw-strategy.
type strategiesAPI struct{ *endpoints }

// vaultsAPI serves the reads of the lending vaults: vaults-info, vault-deposits, best-quote and
// loop-info.
type vaultsAPI struct{ *endpoints }

// earnAPI serves the earn endpoints: earn-position, withdrawal-queue and withdraw-claim.
type earnAPI struct{ *endpoints }

// marketRoutes returns the market's routes, keyed by path below /v1/, on the spec's stand-in paths.
func marketRoutes(a *endpoints) map[string]route {
	loans, positions, strategies, vaults, earn := &loansAPI{a}, &positionsAPI{a}, &strategiesAPI{a}, &vaultsAPI{a}, &earnAPI{a}
	g := apiwire.PathGateway + "/"
	list := []route{
		{apiwire.EndpointUpdateStrategy, "markets/strategy/update", true, withBody(strategies.updateStrategy)},
		{apiwire.EndpointBuildLoan, "markets/creditbook/build", true, withBody(loans.buildLoan)},
		{apiwire.EndpointLoansInfo, "markets/loans/info", false, withBody(loans.loansInfo)},
		{apiwire.EndpointTransferPosition, "markets/creditbook/collateral/" + apiwire.PathDexA + "/transfer_position", true, withBody(positions.transferPosition)},
		{apiwire.EndpointVaultDeposits, "markets/lending_vaults/deposits", false, withBody(vaults.vaultDeposits)},
		{apiwire.EndpointBestQuote, "markets/quote/max", false, withBody(vaults.bestQuote)},
		{apiwire.EndpointHistoricalHolders, "markets/collateral/holders/historical", false, withBody(loans.historicalHolders)},
		{apiwire.EndpointClaimFees, "markets/creditbook/collateral/" + apiwire.PathDexB + "/claim_fees", true, withBody(positions.claimFees)},
		{apiwire.EndpointWithdrawStrategy, "markets/strategy/withdraw", true, withBody(strategies.withdrawStrategy)},
		{apiwire.EndpointWithdrawClaim, g + "earn/vaults/withdraw_claim/tx", true, withBody(earn.withdrawClaim)},
		{apiwire.EndpointVaultsInfo, "markets/lending_vaults/info", false, withBody(vaults.vaultsInfo)},
		{apiwire.EndpointLoopInfo, "markets/loop/info", false, withBody(vaults.loopInfo)},
		{apiwire.EndpointEarnPosition, g + apiwire.PathEarnPosition, false, withBody(earn.earnPosition)},
		{apiwire.EndpointWithdrawalQueue, g + apiwire.PathEarnWithdrawQueue, false, withBody(earn.withdrawalQueue)},
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
