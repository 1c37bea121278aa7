package chainsim

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// UpdateAccount replaces key's account with f's result in one step under
// the chain's lock, so no transaction can land between the read and the
// write (a Account followed by SetAccount could lose its update). f gets a
// copy of the account and whether it exists; an error from f leaves the
// account unchanged and is returned. f must not call the chain.
func (c *Chain) UpdateAccount(key solana.PublicKey, f func(a Account, exists bool) (Account, error)) error {
	c.lock()
	defer c.unlock()
	cur, ok := c.accounts[key]
	var in Account
	if ok {
		in = cur.clone()
	}
	out, err := f(in, ok)
	if err != nil {
		return fmt.Errorf("chainsim: update account %s: %w", key, err)
	}
	cp := out.clone()
	c.accounts[key] = &cp
	return nil
}
