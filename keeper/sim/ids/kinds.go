package ids

// Kinds of named things, as package sim's Accounts.Address looks them up.
const (
	KindMint     = "mint"     // by symbol
	KindWallet   = "wallet"   // by name; "$wallet" is the operator's
	KindPool     = "pool"     // the pool account
	KindPosition = "position" // the position mint (the position account is derived from it)
	KindStrategy = "strategy" // the strategy account
	KindVault    = "vault"    // the lending vault
	KindLoan     = "loan"     // the loan account
	KindEarn     = "earn"     // the earn vault
	KindRequest  = "request"  // "earn-vault/request", the withdrawal request account
	KindMultisig = "multisig" // the Squads multisig account (its vault 0 stands for it as a wallet)
)
