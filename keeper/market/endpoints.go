package market

// Endpoint names, used in errors, logs and the Options.Observe hook.
const (
	EndpointUpdateStrategy      = "update_strategy"       // E1
	EndpointBuildLoan           = "build_loan"            // E2
	EndpointLoansInfo           = "loans_info"            // E3
	EndpointTransferPosition    = "transfer_position"     // E4
	EndpointVaultDeposits       = "vault_deposits"        // E5
	EndpointBestQuote           = "best_quote"            // E6
	EndpointHistoricalHolders   = "historical_holders"    // E7
	EndpointClaimFees           = "claim_fees"            // E8
	EndpointWithdrawStrategy    = "withdraw_strategy"     // E9
	EndpointWithdrawClaim       = "withdraw_claim"        // E10
	EndpointVaultsInfo          = "vaults_info"           // E11
	EndpointLoopInfo            = "loop_info"             // E12
	EndpointEarnPosition        = "earn_position"         // assumed earn read
	EndpointWithdrawalQueue     = "withdrawal_queue"      // assumed earn read
	EndpointEarnWithdrawRequest = "earn_withdraw_request" // assumed earn write
)

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
		{EndpointUpdateStrategy, "markets/strategy/update", true, true},
		{EndpointBuildLoan, "markets/creditbook/build", true, true},
		{EndpointLoansInfo, "markets/loans/info", false, false},
		{EndpointTransferPosition, "markets/creditbook/collateral/" + p.DexA + "/transfer_position", true, true},
		{EndpointVaultDeposits, "markets/lending_vaults/deposits", false, false},
		{EndpointBestQuote, "markets/quote/max", false, true},
		{EndpointHistoricalHolders, "markets/collateral/holders/historical", false, false},
		{EndpointClaimFees, "markets/creditbook/collateral/" + p.DexB + "/claim_fees", true, true},
		{EndpointWithdrawStrategy, "markets/strategy/withdraw", true, true},
		{EndpointWithdrawClaim, g + "earn/vaults/withdraw_claim/tx", true, true},
		{EndpointVaultsInfo, "markets/lending_vaults/info", false, false},
		{EndpointLoopInfo, "markets/loop/info", false, false},
		{EndpointEarnPosition, g + p.EarnPosition, false, false},
		{EndpointWithdrawalQueue, g + p.EarnWithdrawQueue, false, false},
		{EndpointEarnWithdrawRequest, g + p.EarnWithdrawRequest, true, true},
	}
}
