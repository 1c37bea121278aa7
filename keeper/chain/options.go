package chain

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/keeper-project/keeper/internal/redact"
)

// Defaults applied by New to zero Options fields.
const (
	DefaultRateLimit = 20 // requests per second over all RPC endpoints
	DefaultRateBurst = 40
	// DefaultJitoRateLimit is the block engine's documented default limit:
	// one request per second per IP per region (jito-docs
	// lowlatencytxnsend.md, "Rate Limits"); above it the engine answers 429.
	DefaultJitoRateLimit       = 1
	DefaultRequestTimeout      = 10 * time.Second
	DefaultRebroadcastInterval = 2 * time.Second
	DefaultPollInterval        = time.Second
	DefaultBlockhashGrace      = 10 * time.Second
)

// Options configures a Client. Zero fields take the defaults above; URLs may
// carry API keys and are never printed except through redact.URL.
type Options struct {
	// RPCURLs are the Solana RPC endpoints, tried in order: the next one is
	// used when one answers 429 or 5xx, times out, refuses the connection or
	// reports that it is behind. At least one is required.
	RPCURLs []string
	// SendURL, if set, receives sendTransaction first (a staked or landing
	// endpoint); RPCURLs follow it as failover.
	SendURL string
	// SimulateBundleURL is a Jito-Solana RPC endpoint offering
	// simulateBundle, used to simulate the transactions of one answer in
	// order on accumulated state; empty means RPCURLs. An endpoint without
	// the method is remembered as such (see ErrBundleSimUnavailable).
	SimulateBundleURL string
	// Commitment is what "landed" means: confirmed (default) or finalized.
	// Processed is refused: a processed transaction may still be rolled back.
	Commitment rpc.CommitmentType
	// RateLimit and RateBurst bound requests per second (token bucket) over
	// all RPC endpoints together, the send endpoint included; math.Inf(1)
	// disables the limit.
	RateLimit float64
	RateBurst int
	// Retry says how often a call that failed transiently on every endpoint
	// is tried again; zero fields take the Default Retry values.
	Retry Retry
	// RequestTimeout bounds every single HTTP request (solana-go's own default
	// is five minutes).
	RequestTimeout time.Duration
	// RebroadcastInterval is how often an unconfirmed transaction's bytes are
	// sent again; PollInterval how often statuses are asked.
	RebroadcastInterval time.Duration
	PollInterval        time.Duration
	// WSURL is the RPC's websocket endpoint, on which signatureSubscribe
	// wakes a confirmation as soon as the node confirms (statuses are still
	// polled, and decide); empty derives it from the first of RPCURLs (ws://
	// for http://, wss:// for https://, same host, path and query) unless
	// HTTPClient is set: an injected client may reach the RPC by a route a
	// plain websocket dial cannot. Secret like the RPC URLs.
	WSURL string
	// PollOnly turns the websocket off: confirmations are polled alone.
	PollOnly bool
	// BlockhashGrace is how long a blockhash this client never saw valid must
	// stay invalid before it counts as expired: a node that lags behind the
	// builder's node does not know a fresh blockhash yet.
	BlockhashGrace time.Duration
	// JitoURL is the block engine's base URL (the path /api/v1/bundles is
	// appended unless present); empty disables SendBundle.
	JitoURL string
	// JitoAuth, if set, is sent as the x-jito-auth header. Secret.
	JitoAuth string
	// TipAccounts, when set, are the block engine's tip accounts: the
	// client then never asks the engine for them (see Client.TipAccounts).
	TipAccounts []solana.PublicKey
	// KnownTipAccounts, when TipAccounts is empty, are the accounts the
	// client tips before it has asked the engine (PublishedTipAccounts): it
	// asks in the background once a bundle was accepted, and keeps the
	// engine's answer, refreshed hourly, from then on.
	KnownTipAccounts []solana.PublicKey
	// JitoRateLimit is the block engine's limit on this client's requests
	// per second; they are sent one at a time, spaced a tenth wider than the
	// limit (see jitoSpacing).
	JitoRateLimit float64
	// HTTPClient, if set, is used for every request; its Timeout should be
	// zero (RequestTimeout applies per request through the context).
	HTTPClient *http.Client
	// Logger receives Debug progress and Warn retryable failures; nil
	// discards.
	Logger *slog.Logger
	// Observe, if set, is called after every HTTP request with the JSON-RPC
	// method, its duration and its error (nil on success). It must be safe
	// for concurrent use and must not block.
	Observe func(method string, d time.Duration, err error)
}

// withDefaults returns o with zero fields defaulted.
func (o Options) withDefaults() Options {
	o.Commitment = cmp.Or(o.Commitment, rpc.CommitmentConfirmed)
	o.RateLimit = cmp.Or(o.RateLimit, DefaultRateLimit)
	o.RateBurst = cmp.Or(o.RateBurst, DefaultRateBurst)
	o.JitoRateLimit = cmp.Or(o.JitoRateLimit, DefaultJitoRateLimit)
	o.RequestTimeout = cmp.Or(o.RequestTimeout, DefaultRequestTimeout)
	o.Retry = o.Retry.withDefaults()
	o.RebroadcastInterval = cmp.Or(o.RebroadcastInterval, DefaultRebroadcastInterval)
	o.PollInterval = cmp.Or(o.PollInterval, DefaultPollInterval)
	o.BlockhashGrace = cmp.Or(o.BlockhashGrace, DefaultBlockhashGrace)
	o.Logger = cmp.Or(o.Logger, slog.New(slog.DiscardHandler))
	if o.Observe == nil {
		o.Observe = func(string, time.Duration, error) {}
	}
	return o
}

// validate checks defaulted options; errors never echo a URL.
func (o Options) validate() error {
	var errs []error
	if len(o.RPCURLs) == 0 {
		errs = append(errs, errors.New("at least one rpc url is required"))
	}
	for i, u := range o.RPCURLs {
		errs = append(errs, checkURL(fmt.Sprintf("rpc url #%d", i+1), u))
	}
	if o.SimulateBundleURL != "" {
		errs = append(errs, checkURL("simulate bundle url", o.SimulateBundleURL))
	}
	if o.SendURL != "" {
		errs = append(errs, checkURL("send url", o.SendURL))
	}
	if o.JitoURL != "" {
		errs = append(errs, checkURL("jito url", o.JitoURL))
	}
	if u, err := url.Parse(o.WSURL); o.WSURL != "" && (err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "") {
		errs = append(errs, fmt.Errorf("websocket url %s: want ws:// or wss://", redact.URL(o.WSURL)))
	}
	switch o.Commitment {
	case rpc.CommitmentConfirmed, rpc.CommitmentFinalized:
	case rpc.CommitmentProcessed:
		errs = append(errs, errors.New("commitment processed is unsafe for confirmation (it may be rolled back): use confirmed or finalized"))
	default:
		errs = append(errs, fmt.Errorf("commitment %q: want confirmed or finalized", o.Commitment))
	}
	if err := o.Retry.validate(); err != nil {
		errs = append(errs, err)
	}
	if o.RateLimit < 0 || o.RateBurst < 0 || o.JitoRateLimit < 0 {
		errs = append(errs, errors.New("rate limits and burst must not be negative"))
	}
	for name, d := range map[string]time.Duration{
		"request timeout": o.RequestTimeout, "rebroadcast interval": o.RebroadcastInterval,
		"poll interval": o.PollInterval, "blockhash grace": o.BlockhashGrace,
	} {
		if d < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative", name))
		}
	}
	return errors.Join(errs...)
}

// checkURL validates an endpoint URL without ever echoing it.
func checkURL(what, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%s: not an absolute url", what)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%s (%s): scheme must be http or https", what, redact.URL(raw))
	}
	return nil
}

// String describes o with every URL redacted and the Jito auth hidden, so
// that printing Options never leaks a key.
func (o Options) String() string {
	rpcs := make([]string, len(o.RPCURLs))
	for i, u := range o.RPCURLs {
		rpcs[i] = redact.URL(u)
	}
	auth := "unset"
	if o.JitoAuth != "" {
		auth = "set"
	}
	return fmt.Sprintf("chain.Options{RPCURLs:%v SendURL:%s JitoURL:%s JitoAuth:%s Commitment:%s}",
		rpcs, redactOptional(o.SendURL), redactOptional(o.JitoURL), auth, o.Commitment)
}

// GoString is String, so that %#v redacts too.
func (o Options) GoString() string { return o.String() }

// LogValue implements slog.LogValuer with the same redaction as String.
func (o Options) LogValue() slog.Value { return slog.StringValue(o.String()) }

// redactOptional prints a redacted URL, or "none" for an empty one.
func redactOptional(raw string) string {
	if raw == "" {
		return "none"
	}
	return redact.URL(raw)
}

// wsEndpoint is the websocket to watch confirmations on, or "" for none.
func (o Options) wsEndpoint() string {
	switch {
	case o.PollOnly:
		return ""
	case o.WSURL != "":
		return o.WSURL
	case o.HTTPClient != nil:
		return ""
	}
	return WebsocketURL(o.RPCURLs[0])
}
