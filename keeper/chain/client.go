package chain

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"golang.org/x/time/rate"
)

// jitoBundlesPath is the block engine's JSON-RPC path for bundle methods.
const jitoBundlesPath = "/api/v1/bundles"

// Client reads Solana state, simulates, sends and confirms transactions and
// Jito bundles. It is safe for concurrent use; create it with New.
type Client struct {
	opts       Options // defaulted and validated
	commitment rpc.CommitmentType
	hc         *http.Client
	reads      *pool // RPCURLs
	sends      *pool // SendURL (if any), then RPCURLs
	bundleSims *pool // SimulateBundleURL, or RPCURLs
	jito       *jitoClient
	log        *slog.Logger

	bundleSimOff  atomic.Bool // the bundle simulation endpoint has no simulateBundle
	simNoBalances atomic.Bool // the RPC node's simulateTransaction returns no balances

	gone goneMemory // the earliest slot each blockhash was seen gone

	tables lookupCache // address lookup tables' addresses, which only grow

	sigs *sigWatcher // wakes confirmations on the node's notification; nil: poll alone

	tipMu       sync.Mutex
	tipAccounts []solana.PublicKey   // guarded by tipMu; cached getTipAccounts
	tipsMade    map[tipKey]time.Time // guarded by tipMu; tips handed out, see pickTip
}

// New validates o, applies defaults and returns a Client. It makes no
// request.
func New(o Options) (*Client, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("chain options: %w", err)
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = newHTTPClient()
	}
	log := o.Logger.With("component", "chain")
	o.Logger = log
	lim := rate.NewLimiter(rate.Limit(o.RateLimit), o.RateBurst)
	reads := make([]*endpoint, len(o.RPCURLs))
	for i, u := range o.RPCURLs {
		reads[i] = newEndpoint(u, hc, nil)
	}
	sends := reads
	if o.SendURL != "" {
		sends = append([]*endpoint{newEndpoint(o.SendURL, hc, nil)}, reads...)
	}
	c := &Client{
		opts: o, commitment: o.Commitment, hc: hc, log: log,
		reads: newPool(reads, lim, o),
		sends: newPool(sends, lim, o),
	}
	c.bundleSims = c.reads
	if o.SimulateBundleURL != "" {
		c.bundleSims = newPool([]*endpoint{newEndpoint(o.SimulateBundleURL, hc, nil)}, lim, o)
	}
	if o.JitoURL != "" {
		c.jito = newJitoClient(o, hc)
	}
	if u := o.wsEndpoint(); u != "" {
		c.sigs = &sigWatcher{url: u, secrets: secretParts(u), commitment: o.Commitment, log: log}
	}
	return c, nil
}

// Close releases idle connections and the websocket. The Client must not be
// used afterwards.
func (c *Client) Close() error {
	c.sigs.close()
	c.hc.CloseIdleConnections()
	return nil
}

// Commitment returns the commitment at which this client counts a
// transaction as landed.
func (c *Client) Commitment() rpc.CommitmentType { return c.commitment }

// jitoEndpointURL appends the bundles path to the engine URL unless it is
// already there, keeping any query (an auth uuid may travel there).
func jitoEndpointURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw // validated earlier; unreachable
	}
	if !strings.HasSuffix(u.Path, jitoBundlesPath) {
		u.Path = strings.TrimSuffix(u.Path, "/") + jitoBundlesPath
		u.RawPath = ""
	}
	return u.String()
}
