package chain

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"
	"golang.org/x/time/rate"

	"github.com/keeper-project/keeper/internal/failpoint"
)

// MaxBundleTxs is the block engine's limit on transactions per bundle.
const MaxBundleTxs = 5

// jitoBundlesPath is the block engine's JSON-RPC path for bundle methods.
const jitoBundlesPath = "/api/v1/bundles"

// Inflight bundle statuses reported by getInflightBundleStatuses.
const (
	bundleInvalid = "Invalid" // unknown to the engine (5-minute lookback)
	bundlePending = "Pending"
	bundleFailed  = "Failed" // every region failed it; it was not forwarded
	bundleLanded  = "Landed"
)

// jitoClient is a small JSON-RPC client of the Jito block engine's bundle
// methods.
type jitoClient struct {
	pool *pool
}

// newJitoClient returns a client of o.JitoURL with the optional auth header.
func newJitoClient(o Options, hc *http.Client) *jitoClient {
	var headers map[string]string
	var secrets []string
	if o.JitoAuth != "" {
		headers = map[string]string{"x-jito-auth": o.JitoAuth}
		secrets = []string{o.JitoAuth}
	}
	ep := newEndpoint(jitoEndpointURL(o.JitoURL), hc, headers, secrets...)
	lim := rate.NewLimiter(rate.Every(jitoSpacing(o.JitoRateLimit)), 1)
	return &jitoClient{pool: newPool([]*endpoint{ep}, lim, o)}
}

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

// jitoSpacing is how far apart requests to a block engine that takes rps a
// second are sent: a tenth wider than 1/rps. The engine counts requests as
// they reach it, and a request that spends longer on the way than the next
// one (a new connection, a slow hop) brings the two closer there than they
// were sent; sent exactly 1/rps apart, the second would often be refused.
func jitoSpacing(rps float64) time.Duration {
	return time.Duration(1.1 * float64(time.Second) / rps)
}

// BundleID returns the block engine's id of a bundle of transactions with
// the given first signatures: hex(sha256(comma-joined base58 signatures)).
func BundleID(sigs []solana.Signature) string {
	parts := make([]string, len(sigs))
	for i, s := range sigs {
		parts[i] = s.String()
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, ",")))
	return hex.EncodeToString(sum[:])
}

// sendBundle submits 1 to 5 signed wire transactions, in execution order,
// base64 encoded. It returns the engine's bundle id.
func (j *jitoClient) sendBundle(ctx context.Context, raws [][]byte) (string, error) {
	if len(raws) == 0 || len(raws) > MaxBundleTxs {
		return "", fmt.Errorf("sendBundle: %d transactions, want 1 to %d", len(raws), MaxBundleTxs)
	}
	enc := make([]string, len(raws))
	for i, r := range raws {
		enc[i] = base64.StdEncoding.EncodeToString(r)
	}
	params := []any{enc, map[string]string{"encoding": "base64"}}
	id, err := callJSON[string](ctx, j.pool, "sendBundle", params)
	if err == nil && id == "" {
		err = errors.New("sendBundle: empty bundle id in the answer")
	}
	if err == nil {
		failpoint.Hit(failpoint.AfterSend)
	}
	return id, err
}

// inflightStatus is one entry of getInflightBundleStatuses.
type inflightStatus struct {
	BundleID string `json:"bundle_id"`
	Status   string `json:"status"`
}

// inflightStatuses asks the engine about up to 5 recent bundles. An id the
// engine does not return is reported as Invalid.
func (j *jitoClient) inflightStatuses(ctx context.Context, ids []string) (map[string]inflightStatus, error) {
	out, err := callJSON[valueOf[[]*inflightStatus]](ctx, j.pool, "getInflightBundleStatuses", []any{ids})
	if err != nil {
		return nil, err
	}
	res := make(map[string]inflightStatus, len(ids))
	for _, id := range ids {
		res[id] = inflightStatus{BundleID: id, Status: bundleInvalid}
	}
	for _, s := range out.Value {
		if s != nil {
			res[s.BundleID] = *s
		}
	}
	return res, nil
}

// landedBundle is one non-null entry of getBundleStatuses: what the
// engine says it landed, compared with our signatures (its slot,
// confirmation and error are our RPC's to judge, and not read).
type landedBundle struct {
	Transactions []string `json:"transactions"`
}

// bundleStatus asks the engine for a landed bundle; nil means not landed
// (or older than the engine's status history).
func (j *jitoClient) bundleStatus(ctx context.Context, id string) (*landedBundle, error) {
	out, err := callJSON[valueOf[[]*landedBundle]](ctx, j.pool, "getBundleStatuses", []any{[]string{id}})
	if err != nil || len(out.Value) == 0 {
		return nil, err
	}
	return out.Value[0], nil
}

// tipAccounts returns the engine's tip accounts.
func (j *jitoClient) tipAccounts(ctx context.Context) ([]solana.PublicKey, error) {
	out, err := callJSON[[]string](ctx, j.pool, "getTipAccounts", []any{})
	if err != nil {
		return nil, err
	}
	keys := make([]solana.PublicKey, 0, len(out))
	for _, s := range out {
		k, err := solana.PublicKeyFromBase58(s)
		if err != nil {
			return nil, fmt.Errorf("getTipAccounts: tip account %q: %w", s, err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, errors.New("getTipAccounts: the engine returned no tip account")
	}
	return keys, nil
}

// TipAccounts returns the block engine's tip accounts: Options.TipAccounts
// when set, else the engine's answer. The first call asks the engine (which
// shows that it answers) and the answer is kept, for later calls and for
// the tips SendBundle makes: called ahead of the first bundle, it spares
// that bundle a round trip between its signatures and its send. A call made
// while another is asking waits for that answer, as long as its own context
// lasts, and shares its error; a failure keeps nothing, and the next call
// asks again. An answer an hour old is asked again in the background after
// the next bundle the engine accepts, and kept in use until the new one
// comes (or, if that request fails, for another minute before the next
// try).
func (c *Client) TipAccounts(ctx context.Context) ([]solana.PublicKey, error) {
	if c.bundles.jito == nil {
		return nil, errors.New("no block engine configured (chain.jito_url)")
	}
	return c.bundles.tips.known(ctx)
}
