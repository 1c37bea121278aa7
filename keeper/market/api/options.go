package api

import (
	"cmp"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

// Defaults applied by New to zero-valued Options members.
const (
	DefaultTimeout          = 15 * time.Second
	DefaultVersion          = "dev"
	DefaultWalletHeader     = "user-wallet"
	DefaultPayerHeader      = "payer"
	DefaultMaxResponseBytes = 32 << 20
	DefaultPageSize         = 100
	DefaultPagesInFlight    = 2
	DefaultMaxAttempts      = 4
	DefaultBaseBackoff      = 250 * time.Millisecond
	DefaultMaxBackoff       = 8 * time.Second
)

// Options configures a Client. Only BaseURL is required.
type Options struct {
	// BaseURL is the API root; its path must end in /v1 (a trailing slash is allowed). A query string
	// (e.g. a keyed URL) is kept on every request and redacted from errors.
	BaseURL string
	// HTTPClient sends the requests. Default: a client that refuses redirects, so a custom auth
	// header can never follow one to another host.
	HTTPClient *http.Client
	// Timeout bounds each HTTP attempt (not the whole call with its retries). Default 15 s.
	Timeout time.Duration
	// Version is keeper's version, used in the default UserAgent. Default "dev".
	Version string
	// UserAgent is sent on every request. Default "keeper/<Version>".
	UserAgent string
	// AuthHeader and AuthValue, when AuthValue is set, send an authentication header. AuthValue is a
	// secret: it never appears in errors or logs.
	AuthHeader string
	AuthValue  string
	// WalletHeader and PayerHeader name the wallet and fee-payer headers. Defaults "user-wallet" and
	// "payer".
	WalletHeader string
	PayerHeader  string
	// Wallet and Payer are base58 public keys sent on the best-quote call and on every
	// transaction-building call. Wallet is required for transaction-building calls; an empty Payer is
	// not sent (the service then uses Wallet).
	Wallet string
	Payer  string
	// Paths overrides the stand-in path segments, the earn provider and the assumed earn paths.
	Paths Paths
	// QueueFields overrides the assumed member names of the withdrawal-queue answer, which the spec
	// does not show; an empty name takes its default (market.DefaultWithdrawalQueueFields).
	QueueFields market.WithdrawalQueueFields
	// RateLimit limits requests (every attempt counts). Zero means unlimited.
	RateLimit RateLimit
	// Retry configures retries of retryable failures.
	Retry RetryPolicy
	// MaxResponseBytes bounds a response body. Default 32 MiB.
	MaxResponseBytes int64
	// PagesInFlight is how many pages of a loans walk (LoanPages) are requested at once
	// after the first, within the rate limit, so that the walk keeps the market's allowance busy
	// while answers travel and one page is decoded while the next is awaited. Default 2; 1 walks
	// strictly one page at a time.
	PagesInFlight int
	// PageSize is how many loans a page of a loans walk asks for when the query sets no page size.
	// The spec shows no maximum: a market that refuses the size (400 on page 0) is asked again with
	// half as many, down to DefaultPageSize, and the client keeps the size it took. A market that
	// answers fewer items than asked is walked by its own pageInfo. Default DefaultPageSize.
	PageSize int
	// SnapshotWalks is how many walks of E3 LoanPages reads, at most, to get one whose pages all
	// carry the same snapshotTs; 1 refuses a mixed walk without reading it again. Default
	// DefaultSnapshotWalks (3).
	SnapshotWalks int
	// Observe, when set, is called after every HTTP attempt with the endpoint name, the HTTP status
	// (0 when no response arrived), the attempt's duration and its error (nil on success). It must be
	// safe for concurrent use and must not block.
	Observe func(endpoint string, status int, d time.Duration, err error)
	// Logger receives a Warn line per retried failure and per walk read again. Default: discard.
	Logger *slog.Logger
}

// RateLimit is a token bucket: PerSecond requests per second on average, bursts of up to Burst.
type RateLimit struct {
	PerSecond float64
	// Burst is the bucket size. Default 1 when PerSecond is set.
	Burst int
}

// RetryPolicy configures retries: attempt n (from 1) that fails retryably waits
// min(MaxBackoff, BaseBackoff·2^(n−1)), scaled by a uniform random factor in [0, 1) (full jitter)
// unless DisableJitter, and at least as long as the response's Retry-After.
type RetryPolicy struct {
	// MaxAttempts counts the first attempt; 1 disables retries. Default 4.
	MaxAttempts int
	// BaseBackoff is the first wait before jitter. Default 250 ms.
	BaseBackoff time.Duration
	// MaxBackoff caps a wait before jitter. Default 8 s.
	MaxBackoff time.Duration
	// DisableJitter makes waits exactly exponential.
	DisableJitter bool
	// Rand returns a uniform value in [0, 1) for jitter; it must be safe for concurrent use.
	// Default math/rand/v2.Float64.
	Rand func() float64
}

// withDefaults returns o with zero members set to their defaults.
func (o Options) withDefaults() Options {
	o.Timeout = cmp.Or(o.Timeout, DefaultTimeout)
	o.Version = cmp.Or(o.Version, DefaultVersion)
	o.UserAgent = cmp.Or(o.UserAgent, "keeper/"+o.Version)
	o.WalletHeader = cmp.Or(o.WalletHeader, DefaultWalletHeader)
	o.PayerHeader = cmp.Or(o.PayerHeader, DefaultPayerHeader)
	o.MaxResponseBytes = cmp.Or(o.MaxResponseBytes, DefaultMaxResponseBytes)
	if o.PageSize <= 0 {
		o.PageSize = DefaultPageSize
	}
	if o.PagesInFlight <= 0 {
		o.PagesInFlight = DefaultPagesInFlight
	}
	if o.SnapshotWalks <= 0 {
		o.SnapshotWalks = DefaultSnapshotWalks
	}
	if o.RateLimit.PerSecond > 0 && o.RateLimit.Burst == 0 {
		o.RateLimit.Burst = 1
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{CheckRedirect: refuseRedirect}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Paths = o.Paths.withDefaults()
	o.QueueFields = o.QueueFields.WithDefaults()
	o.Retry = o.Retry.withDefaults()
	return o
}

// withDefaults returns p with zero members set to their defaults.
func (p RetryPolicy) withDefaults() RetryPolicy {
	p.MaxAttempts = cmp.Or(p.MaxAttempts, DefaultMaxAttempts)
	p.BaseBackoff = cmp.Or(p.BaseBackoff, DefaultBaseBackoff)
	p.MaxBackoff = cmp.Or(p.MaxBackoff, max(DefaultMaxBackoff, p.BaseBackoff))
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	return p
}

// refuseRedirect stops the default client from following redirects.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
