package market

// Endpoint names of the market API: E1-E12 of the spec and the assumed earn
// reads and write. The client uses them in errors, logs and its Observe hook,
// the simulator in its routes and faults.
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
