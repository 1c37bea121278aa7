// Package tipfloor reads the tip floor of Jito's block engine: the
// percentiles of the tips of the bundles that landed recently, from Jito's
// public REST API (GET https://bundles.jito.wtf/api/v1/bundles/tip_floor)
// or anything answering in its shape.
package tipfloor

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/keeper-project/keeper/internal/redact"
)

// Jito's public tip-floor API, which serves every region's block engine.
const (
	tipFloorPath     = "/api/v1/bundles/tip_floor"
	jitoTipFloorURL  = "https://bundles.jito.wtf" + tipFloorPath
	jitoDomain       = "jito.wtf"
	maxTipFloorBytes = 64 << 10
	// maxTipSOL bounds a plausible landed tip, so that a garbled answer is
	// refused instead of priced from.
	maxTipSOL = 1_000
)

// Floor is what the tip-floor API reports of the bundles that landed
// recently, in lamports.
type Floor struct {
	// Time is when the figures were computed.
	Time time.Time
	// P25, P50, P75, P95 and P99 are percentiles of the landed tips.
	P25, P50, P75, P95, P99 uint64
	// EMA50 is the engine's moving average of the median landed tip.
	EMA50 uint64
}

// wireTipFloor is one entry of the API's answer: tips in SOL.
type wireTipFloor struct {
	Time  string   `json:"time"`
	P25   *float64 `json:"landed_tips_25th_percentile"`
	P50   *float64 `json:"landed_tips_50th_percentile"`
	P75   *float64 `json:"landed_tips_75th_percentile"`
	P95   *float64 `json:"landed_tips_95th_percentile"`
	P99   *float64 `json:"landed_tips_99th_percentile"`
	EMA50 *float64 `json:"ema_landed_tips_50th_percentile"`
}

// URLFor returns the tip-floor URL that goes with a block engine: Jito's
// public API (https://bundles.jito.wtf/api/v1/bundles/tip_floor) for an
// engine under jito.wtf, whatever its region; otherwise (a self-hosted
// engine, keeper's simulator) the engine's scheme and host with the API's
// path. "" for no engine. Nothing of the engine URL but its host is kept:
// its path or query may carry a key.
func URLFor(jitoURL string) string {
	u, err := url.Parse(jitoURL)
	if jitoURL == "" || err != nil || u.Host == "" {
		return ""
	}
	if h := u.Hostname(); h == jitoDomain || strings.HasSuffix(h, "."+jitoDomain) {
		return jitoTipFloorURL
	}
	return u.Scheme + "://" + u.Host + tipFloorPath
}

// Reader reads the tip floor from URL.
type Reader struct {
	// URL is the tip-floor API's URL; it may carry a key, and is printed
	// only reduced to scheme and host.
	URL string
	// HTTP makes the requests; nil means http.DefaultClient.
	HTTP *http.Client
	// Timeout bounds a request; zero means DefaultTimeout.
	Timeout time.Duration
	// Observe, if set, is told the duration and error of every request
	// (method "tip_floor"), as chain.Options.Observe is.
	Observe func(method string, d time.Duration, err error)
}

// DefaultTimeout bounds a request when Reader.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// Read asks the API once and returns the most recent entry of its answer,
// in lamports. The API is public and rate-limited: keep an answer for a
// while rather than ask for every bundle.
func (r *Reader) Read(ctx context.Context) (Floor, error) {
	if r.URL == "" {
		return Floor{}, errors.New("tip floor: no url (chain.tip_floor_url, or a chain.jito_url to derive it from)")
	}
	start := time.Now()
	f, err := r.fetch(ctx)
	if err != nil {
		err = fmt.Errorf("tip floor from %s: %w", redact.URL(r.URL), redact.Of(r.URL).Error(err))
	}
	if r.Observe != nil {
		r.Observe("tip_floor", time.Since(start), err)
	}
	return f, err
}

// fetch makes the request and decodes the answer.
func (r *Reader) fetch(ctx context.Context) (Floor, error) {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(r.Timeout, DefaultTimeout))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL, nil)
	if err != nil {
		return Floor{}, errors.New("bad url")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := cmp.Or(r.HTTP, http.DefaultClient).Do(req)
	if err != nil {
		return Floor{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTipFloorBytes))
	if err != nil {
		return Floor{}, fmt.Errorf("read the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return Floor{}, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var entries []wireTipFloor
	if err := json.Unmarshal(body, &entries); err != nil {
		return Floor{}, fmt.Errorf("decode the answer: %w", err)
	}
	if len(entries) == 0 {
		return Floor{}, errors.New("the answer has no entry")
	}
	return entries[0].lamports()
}

// lamports converts an entry to lamports, refusing a missing, negative or
// implausible figure.
func (w wireTipFloor) lamports() (Floor, error) {
	var f Floor
	if w.Time != "" {
		t, err := time.Parse(time.RFC3339, w.Time)
		if err != nil {
			return f, fmt.Errorf("time %q: %w", w.Time, err)
		}
		f.Time = t
	}
	for _, x := range []struct {
		name string
		sol  *float64
		dst  *uint64
	}{
		{"landed_tips_25th_percentile", w.P25, &f.P25}, {"landed_tips_50th_percentile", w.P50, &f.P50},
		{"landed_tips_75th_percentile", w.P75, &f.P75}, {"landed_tips_95th_percentile", w.P95, &f.P95},
		{"landed_tips_99th_percentile", w.P99, &f.P99}, {"ema_landed_tips_50th_percentile", w.EMA50, &f.EMA50},
	} {
		if x.sol == nil {
			return f, fmt.Errorf("%s is missing", x.name)
		}
		if !(*x.sol >= 0 && *x.sol <= maxTipSOL) {
			return f, fmt.Errorf("%s is %v SOL, want 0 to %d", x.name, *x.sol, maxTipSOL)
		}
		*x.dst = uint64(math.Round(*x.sol * 1e9))
	}
	return f, nil
}

// Percentile returns the landed tip at the smallest published percentile
// (25, 50, 75, 95, 99) at or above pct: what beat pct percent of the
// recently landed bundles, rounded up to what the API publishes.
func (f Floor) Percentile(pct int) uint64 {
	switch {
	case pct <= 25:
		return f.P25
	case pct <= 50:
		return f.P50
	case pct <= 75:
		return f.P75
	case pct <= 95:
		return f.P95
	}
	return f.P99
}
