package apiwire

// Endpoint names of the simulated market: E1–E12 of the spec and the assumed earn reads, as its
// routes, faults and logs name them.
const (
	EndpointUpdateStrategy    = "update_strategy"    // E1
	EndpointWithdrawClaim     = "withdraw_claim"     // E10
	EndpointVaultsInfo        = "vaults_info"        // E11
	EndpointLoopInfo          = "loop_info"          // E12
	EndpointBuildLoan         = "build_loan"         // E2
	EndpointLoansInfo         = "loans_info"         // E3
	EndpointTransferPosition  = "transfer_position"  // E4
	EndpointVaultDeposits     = "vault_deposits"     // E5
	EndpointBestQuote         = "best_quote"         // E6
	EndpointHistoricalHolders = "historical_holders" // E7
	EndpointClaimFees         = "claim_fees"         // E8
	EndpointWithdrawStrategy  = "withdraw_strategy"  // E9
	EndpointEarnPosition      = "earn_position"      // assumed earn read
	EndpointWithdrawalQueue   = "withdrawal_queue"   // assumed earn read
)
