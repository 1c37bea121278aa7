package prices

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
)

// Source says where one mint's price comes from: a Pyth feed read from its
// account on chain, or a fixed USD price.
type Source struct {
	// Feed and Account are the Pyth feed and its price update account;
	// Account is zero for a static price.
	Feed    FeedID
	Account solana.PublicKey
	// USD is a static price; used when Account is zero.
	USD float64
}

// PythSource is the source of feed read from its shard-0 sponsored account,
// or from account when it is not zero (an account the operator updates).
func PythSource(feed FeedID, account solana.PublicKey) (Source, error) {
	if account.IsZero() {
		var err error
		if account, err = FeedAccount(feed, 0); err != nil {
			return Source{}, err
		}
	}
	return Source{Feed: feed, Account: account}, nil
}

// Account is an account's owner and data as the chain returned them.
type Account struct {
	Owner solana.PublicKey
	Data  []byte
}

// ReadFunc reads accounts in one request; a missing account is nil.
type ReadFunc func(ctx context.Context, keys []solana.PublicKey) ([]*Account, error)

// Book prices mints from their sources. It is safe for concurrent use.
type Book struct {
	sources map[string]Source // by mint address
	limits  Limits
	read    ReadFunc
}

// NewBook returns a book of sources by mint address, reading Pyth accounts
// with read and accepting their prices within limits.
func NewBook(sources map[string]Source, limits Limits, read ReadFunc) *Book {
	return &Book{sources: sources, limits: limits, read: read}
}

// ErrNoSource reports a mint no price source is configured for.
var ErrNoSource = errors.New("no price source is configured for the mint")

// Result is what Prices found: prices by mint, why each other mint has
// none, and the chain's clock at the read.
type Result struct {
	USD     map[string]float64
	Unknown map[string]error
	// ChainTime is the Clock sysvar's unix_timestamp, read in the same
	// request as the price accounts: the time on-chain programs (and Pyth's
	// own staleness check) compare with. Zero when it could not be read.
	ChainTime time.Time
}

// Prices returns the USD price of one whole token of each of mints it can
// price, reading the Clock sysvar and every Pyth account it needs in one
// request, and for every other mint why its price is unknown. A Pyth
// price's age is measured against the chain's clock, else against now.
func (b *Book) Prices(ctx context.Context, mints []string, now time.Time) Result {
	res := Result{USD: map[string]float64{}, Unknown: map[string]error{}}
	keys := []solana.PublicKey{ClockSysvar}
	var onChain []string
	for _, m := range mints {
		src, ok := b.sources[m]
		switch {
		case !ok:
			res.Unknown[m] = ErrNoSource
		case src.Account.IsZero():
			res.USD[m] = src.USD
		default:
			keys = append(keys, src.Account)
			onChain = append(onChain, m)
		}
	}
	if b.read == nil {
		for _, m := range onChain {
			res.Unknown[m] = fmt.Errorf("%w: the chain client cannot read accounts", ErrRead)
		}
		return res
	}
	accts, err := b.read(ctx, keys)
	if err == nil && len(accts) != len(keys) {
		err = fmt.Errorf("asked for %d accounts, got %d", len(keys), len(accts))
	}
	if err == nil {
		if t, cerr := decodeClock(accts[0]); cerr == nil {
			res.ChainTime, now = t, t
		}
	}
	for i, m := range onChain {
		if err != nil {
			res.Unknown[m] = fmt.Errorf("%w %s: %w", ErrRead, keys[i+1], err)
			continue
		}
		if v, perr := b.price(b.sources[m], accts[i+1], now); perr != nil {
			res.Unknown[m] = fmt.Errorf("feed %s (Pyth account %s): %w", b.sources[m].Feed, keys[i+1], perr)
		} else {
			res.USD[m] = v
		}
	}
	return res
}

// ClockSysvar is the Clock sysvar account.
var ClockSysvar = solana.SysVarClockPubkey

// decodeClock reads the unix_timestamp (bytes 32 to 40) of the Clock
// sysvar account.
func decodeClock(a *Account) (time.Time, error) {
	if a == nil || a.Owner != sysvarOwner || len(a.Data) < 40 {
		return time.Time{}, errors.New("not the Clock sysvar")
	}
	return time.Unix(int64(binary.LittleEndian.Uint64(a.Data[32:])), 0).UTC(), nil
}

// sysvarOwner owns the sysvar accounts.
var sysvarOwner = solana.MustPublicKeyFromBase58("Sysvar1111111111111111111111111111111111111")

// price checks one feed's account and returns its USD price.
func (b *Book) price(src Source, a *Account, now time.Time) (float64, error) {
	switch {
	case a == nil:
		return 0, fmt.Errorf("%w: the account does not exist", ErrBadAccount)
	case a.Owner != ReceiverProgram:
		return 0, fmt.Errorf("%w: the account is owned by %s, not the Pyth receiver", ErrBadAccount, a.Owner)
	}
	u, err := DecodeUpdate(a.Data)
	if err != nil {
		return 0, err
	}
	return u.Check(src.Feed, now, b.limits)
}
