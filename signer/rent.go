package signer

// CheckWalletRent refuses a transaction whose simulation shows it leaving
// the wallet with lamports above zero but below its rent-exempt minimum
// where the runtime's rent rule forbids that (strands, as keeper/chain
// measures it): on chain it fails with InsufficientFundsForRent and costs
// its fee, and a repay of native SOL sized to the whole balance but the fee
// does exactly that.
func CheckWalletRent(kind Kind, strands bool) error {
	if !strands {
		return nil
	}
	return refuse(RuleStrandedWallet, "%s: simulation leaves the wallet above zero but below its rent-exempt minimum (the chain fails it with InsufficientFundsForRent)", kind)
}
