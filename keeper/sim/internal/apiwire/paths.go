package apiwire

// The simulated market's paths below /v1 and its request headers. The spec writes vendor path
// segments with neutral stand-ins (dex-a, dex-b, gateway, provider-a) and the simulator serves those;
// the earn position and withdrawal-queue reads, and both headers, are not in the spec: their names are
// the simulator's assumptions (docs/assumptions.md).
const (
	PathDexA              = "dex-a"
	PathDexB              = "dex-b"
	PathGateway           = "gateway"
	PathEarnPosition      = "earn/vaults/position"
	PathEarnWithdrawQueue = "earn/vaults/withdraw_queue"

	// ProviderDefault is E10's provider, the only one supported.
	ProviderDefault = "provider-a"

	// HeaderWallet carries the requesting wallet (E6 and the transaction builds); HeaderPayer the fee
	// payer of a build when it is not the wallet.
	HeaderWallet = "user-wallet"
	HeaderPayer  = "payer"
)
