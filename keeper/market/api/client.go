package api

import (
	"log/slog"
	"net/http"
	"time"
)

// Client is a typed client for the lending market API. It is safe for concurrent use.
type Client struct {
	hc       *http.Client
	opts     Options          // defaulted and validated
	routes   map[string]route // by endpoint name
	urls     map[string]string
	limiter  *limiter
	bodies   *bodies
	redactor redactor
	log      *slog.Logger
}

// New validates opts, applies defaults and returns a Client.
func New(opts Options) (*Client, error) {
	opts = opts.withDefaults()
	base, err := opts.validate()
	if err != nil {
		return nil, err
	}
	c := &Client{
		hc:       opts.HTTPClient,
		opts:     opts,
		routes:   make(map[string]route),
		urls:     make(map[string]string),
		limiter:  newLimiter(opts.RateLimit),
		bodies:   newBodies(),
		redactor: newRedactor(opts.AuthValue, base),
		log:      opts.Logger.With("component", "market"),
	}
	for _, r := range opts.Paths.routes() {
		c.routes[r.name] = r
		c.urls[r.name] = base.JoinPath(r.path).String()
	}
	return c, nil
}

// Wallet returns the configured wallet (empty when none).
func (c *Client) Wallet() string { return c.opts.Wallet }

// Provider returns the earn provider sent when a request leaves it empty.
func (c *Client) Provider() string { return c.opts.Paths.Provider }

// observe calls the Observe hook when one is set.
func (c *Client) observe(endpoint string, status int, d time.Duration, err error) {
	if c.opts.Observe != nil {
		c.opts.Observe(endpoint, status, d, err)
	}
}
