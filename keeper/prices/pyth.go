package prices

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"
)

// The Pyth programs on Solana mainnet: the receiver owns every price update
// account; the push oracle derives the sponsored feed accounts.
var (
	ReceiverProgram   = solana.MustPublicKeyFromBase58("rec5EKMGg6MxZYaMdyBfgwp4d5rB9T1VQH5pJv5LtFJ")
	PushOracleProgram = solana.MustPublicKeyFromBase58("pythWSnswVUd12oZpeFP8e9CVaEqJg25g1Vtc2biRsT")
)

// priceUpdateDiscriminator is the Anchor account discriminator of
// PriceUpdateV2: sha256("account:PriceUpdateV2")[:8].
var priceUpdateDiscriminator = []byte{34, 241, 35, 99, 157, 126, 244, 205}

// PriceUpdateLen is the size the receiver allocates for a PriceUpdateV2.
const PriceUpdateLen = 134

// FeedID is a Pyth price feed id.
type FeedID [32]byte

// ParseFeedID reads a feed id written as 64 hex digits, with or without 0x.
func ParseFeedID(s string) (FeedID, error) {
	var id FeedID
	h := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(h) != 64 {
		return id, fmt.Errorf("a Pyth feed id is 64 hex digits, got %d characters", len(h))
	}
	if _, err := hex.Decode(id[:], []byte(h)); err != nil {
		return id, fmt.Errorf("a Pyth feed id is 64 hex digits: %w", err)
	}
	return id, nil
}

// String is the id in hex, without 0x.
func (id FeedID) String() string { return hex.EncodeToString(id[:]) }

// FeedAccount is the sponsored price feed account of id at shard (shard 0
// is the one Pyth keeps updated): the push oracle's PDA of the shard as a
// little-endian u16 and the feed id.
func FeedAccount(id FeedID, shard uint16) (solana.PublicKey, error) {
	var s [2]byte
	binary.LittleEndian.PutUint16(s[:], shard)
	addr, _, err := solana.FindProgramAddress([][]byte{s[:], id[:]}, PushOracleProgram)
	if err != nil {
		return solana.PublicKey{}, fmt.Errorf("deriving the feed account of %s: %w", id, err)
	}
	return addr, nil
}

// Update is a decoded PriceUpdateV2.
type Update struct {
	WriteAuthority solana.PublicKey
	// Full reports VerificationLevel::Full; a Partial update was checked
	// against fewer guardian signatures.
	Full        bool
	Feed        FeedID
	Price       int64
	Conf        uint64
	Exponent    int32
	PublishTime time.Time
	PostedSlot  uint64
}

// errNotPriceUpdate reports data that is not a PriceUpdateV2.
var errNotPriceUpdate = fmt.Errorf("%w: not a Pyth PriceUpdateV2 account", ErrBadAccount)

// DecodeUpdate decodes a PriceUpdateV2 account's data. The verification
// level is a borsh enum whose width depends on its variant, so the fields
// after it are read from where it ends.
func DecodeUpdate(data []byte) (Update, error) {
	var u Update
	if len(data) < 41 || !bytes.Equal(data[:8], priceUpdateDiscriminator) {
		return u, errNotPriceUpdate
	}
	u.WriteAuthority = solana.PublicKeyFromBytes(data[8:40])
	b := 41
	switch data[40] {
	case 0: // Partial{num_signatures: u8}
		b = 42
	case 1:
		u.Full = true
	default:
		return u, fmt.Errorf("%w: verification level %d", errNotPriceUpdate, data[40])
	}
	if len(data) < b+92 {
		return u, fmt.Errorf("%w: %d bytes", errNotPriceUpdate, len(data))
	}
	le := binary.LittleEndian
	copy(u.Feed[:], data[b:b+32])
	u.Price = int64(le.Uint64(data[b+32:]))
	u.Conf = le.Uint64(data[b+40:])
	u.Exponent = int32(le.Uint32(data[b+48:]))
	u.PublishTime = time.Unix(int64(le.Uint64(data[b+52:])), 0).UTC()
	u.PostedSlot = le.Uint64(data[b+84:])
	return u, nil
}

// EncodeUpdate is the account data of a fully verified update, as the
// receiver writes it (the simulator publishes prices with it).
func EncodeUpdate(u Update) []byte {
	data := make([]byte, PriceUpdateLen)
	copy(data, priceUpdateDiscriminator)
	copy(data[8:], u.WriteAuthority[:])
	data[40] = 1
	le := binary.LittleEndian
	b := 41
	copy(data[b:], u.Feed[:])
	le.PutUint64(data[b+32:], uint64(u.Price))
	le.PutUint64(data[b+40:], u.Conf)
	le.PutUint32(data[b+48:], uint32(u.Exponent))
	le.PutUint64(data[b+52:], uint64(u.PublishTime.Unix()))
	le.PutUint64(data[b+60:], uint64(u.PublishTime.Unix())) // prev_publish_time
	le.PutUint64(data[b+68:], uint64(u.Price))              // ema_price
	le.PutUint64(data[b+76:], u.Conf)                       // ema_conf
	le.PutUint64(data[b+84:], u.PostedSlot)
	return data
}

// Value is price × 10^exponent.
func (u Update) Value() float64 {
	return float64(u.Price) * math.Pow10(int(u.Exponent))
}

// ConfRatio is the confidence interval relative to the price (conf/price).
func (u Update) ConfRatio() float64 {
	if u.Price <= 0 {
		return math.Inf(1)
	}
	return float64(u.Conf) / float64(u.Price)
}

// Limits are what a price must meet to be used.
type Limits struct {
	// MaxAge bounds now − publish time.
	MaxAge time.Duration
	// MaxConfidence bounds conf/price.
	MaxConfidence float64
}

// The reasons a price is unknown; errors from Check and Book.Prices wrap
// one of them (Reason names it for metrics).
var (
	ErrStale      = errors.New("stale")
	ErrUncertain  = errors.New("uncertain")
	ErrUnverified = errors.New("not fully verified")
	ErrBadAccount = errors.New("not a usable price account")
	ErrRead       = errors.New("cannot read the price account")
	// ErrNoDecimals is the caller's: a price per whole token is of no use
	// for a mint whose decimals it does not know.
	ErrNoDecimals = errors.New("the mint's decimals are unknown")
)

// Check returns the USD price u gives for feed at now, or why it is not
// usable: another feed, a partially verified update, a price that is not
// positive, older than the limit or less certain than it.
func (u Update) Check(feed FeedID, now time.Time, l Limits) (float64, error) {
	switch age := now.Sub(u.PublishTime); {
	case u.Feed != feed:
		return 0, fmt.Errorf("%w: the account holds feed %s, not %s", ErrBadAccount, u.Feed, feed)
	case !u.Full:
		return 0, fmt.Errorf("%w: the update is only partially verified", ErrUnverified)
	case u.Price <= 0:
		return 0, fmt.Errorf("%w: the price %d is not positive", ErrBadAccount, u.Price)
	case age > l.MaxAge:
		return 0, fmt.Errorf("%w: published %s ago, more than the %s allowed", ErrStale, age.Round(time.Second), l.MaxAge)
	case u.ConfRatio() > l.MaxConfidence:
		return 0, fmt.Errorf("%w: confidence ±%.2f %% of the price, more than the %.2f %% allowed",
			ErrUncertain, 100*u.ConfRatio(), 100*l.MaxConfidence)
	}
	return u.Value(), nil
}

// Reason names why a price is unknown, for a metric label: no_source,
// stale, uncertain, unverified, bad_account, read, no_decimals or other.
func Reason(err error) string {
	for _, r := range []struct {
		err  error
		name string
	}{{ErrNoSource, "no_source"}, {ErrStale, "stale"}, {ErrUncertain, "uncertain"}, {ErrUnverified, "unverified"},
		{ErrBadAccount, "bad_account"}, {ErrRead, "read"}, {ErrNoDecimals, "no_decimals"}} {
		if errors.Is(err, r.err) {
			return r.name
		}
	}
	return "other"
}
