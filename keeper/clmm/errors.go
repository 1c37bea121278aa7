package clmm

import (
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// Sentinel errors, matched with errors.Is through an [*AccountError].
var (
	// ErrMissing means the account does not exist on chain.
	ErrMissing = errors.New("account not found")
	// ErrLength means the account data does not have the layout's size.
	ErrLength = errors.New("unexpected account length")
	// ErrDiscriminator means the first 8 bytes are not the expected Anchor
	// account discriminator.
	ErrDiscriminator = errors.New("wrong account discriminator")
	// ErrInvalid means the account decoded but holds impossible values.
	ErrInvalid = errors.New("invalid account contents")
	// ErrMismatch means an account does not belong with the others of its
	// request (position of another pool or mint).
	ErrMismatch = errors.New("account mismatch")
)

// Account kinds used in [AccountError].
const (
	// AccountPool names a pool account.
	AccountPool = "pool"
	// AccountPosition names a position account.
	AccountPosition = "position"
)

// AccountError reports a problem with one account.
type AccountError struct {
	// Dex is the layout name, "dex-a" or "dex-b".
	Dex string
	// Account is AccountPool, AccountPosition or AccountTickArray.
	Account string
	// Address is the account address; zero when the bytes were decoded
	// without one.
	Address solana.PublicKey
	// Err is the cause; it wraps one of the sentinel errors.
	Err error
}

// Error returns "clmm: <dex> <account> <address>: <cause>".
func (e *AccountError) Error() string {
	if e.Address.IsZero() {
		return fmt.Sprintf("clmm: %s %s account: %v", e.Dex, e.Account, e.Err)
	}
	return fmt.Sprintf("clmm: %s %s account %s: %v", e.Dex, e.Account, e.Address, e.Err)
}

// Unwrap returns the cause.
func (e *AccountError) Unwrap() error { return e.Err }

// withAddress returns err with addr recorded when err is an *AccountError
// that has none yet; other errors are wrapped in a new AccountError.
func withAddress(err error, dex, account string, addr solana.PublicKey) error {
	var ae *AccountError
	if errors.As(err, &ae) {
		cp := *ae
		if cp.Address.IsZero() {
			cp.Address = addr
		}
		return &cp
	}
	return &AccountError{Dex: dex, Account: account, Address: addr, Err: err}
}
