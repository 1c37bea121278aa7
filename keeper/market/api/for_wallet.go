package api

// ForWallet returns a client like c that builds for wallet: the wallet
// header names it and no payer header is sent (the service then has wallet
// pay), as for a multisig vault whose transactions keeper proposes. It
// shares c's HTTP client and options, not its rate limiter.
func (c *Client) ForWallet(wallet string) (*Client, error) {
	o := c.opts
	o.Wallet, o.Payer = wallet, ""
	return New(o)
}
