package api

import (
	"log/slog"
	"net/http"
)

// Client is a typed client for the lending market API. It is safe for concurrent use.
//
// Its endpoints are grouped by resource into services that each hold what their endpoints need, and
// whose methods are the Client's: the loans (paginate.go), the vaults and their depositors
// (paginate_vaults.go), quotes, holders and loops (api_reads.go), the earn vaults (api_earn.go), and
// the transaction builders (api_writes.go). All of them send through one transport.
type Client struct {
	*loans
	*vaults
	*quotes
	*earn
	*builds
	opts Options    // defaulted and validated
	t    *transport // the HTTP exchanges every endpoint goes through
}

// transport sends the calls of a Client: one route per endpoint, the rate limiter, retries, response
// bodies read within bounds, and errors with every secret redacted (do.go, do_errors.go, retry.go).
type transport struct {
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
	t := &transport{
		hc:       opts.HTTPClient,
		opts:     opts,
		routes:   make(map[string]route),
		urls:     make(map[string]string),
		limiter:  newLimiter(opts.RateLimit),
		bodies:   newBodies(),
		redactor: newRedactor(opts.AuthValue, opts.BaseURL),
		log:      opts.Logger.With("component", "market"),
	}
	for _, r := range opts.Paths.routes() {
		t.routes[r.name] = r
		t.urls[r.name] = base.JoinPath(r.path).String()
	}
	ls := &loans{t: t, walks: opts.SnapshotWalks, inFlight: opts.PagesInFlight, log: opts.Logger}
	ls.size.Store(int64(opts.PageSize))
	return &Client{
		loans:  ls,
		vaults: &vaults{t: t},
		quotes: &quotes{t: t},
		earn:   &earn{t: t, provider: opts.Paths.Provider, queueFields: opts.QueueFields},
		builds: &builds{t: t},
		opts:   opts,
		t:      t,
	}, nil
}
