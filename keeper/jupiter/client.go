package jupiter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Options configure a Client.
type Options struct {
	// BaseURL is the API's root, e.g. https://api.jup.ag (the paths below are joined to it).
	BaseURL string
	// APIKey, when set, is sent in the x-api-key header. It is a secret.
	APIKey string
	// QuotePath and SwapInstructionsPath default to /swap/v1/quote and /swap/v1/swap-instructions.
	QuotePath, SwapInstructionsPath string
	// Timeout bounds each call (default 10 s).
	Timeout time.Duration
	// MaxResponseBytes bounds a response body (default 1 MiB).
	MaxResponseBytes int64
	// HTTPClient sends the calls (default a new http.Client).
	HTTPClient *http.Client
}

// Defaults of Options.
const (
	DefaultQuotePath            = "/swap/v1/quote"
	DefaultSwapInstructionsPath = "/swap/v1/swap-instructions"
	defaultTimeout              = 10 * time.Second
	defaultMaxResponseBytes     = 1 << 20
)

// Client calls Jupiter's swap API. It is safe for concurrent use.
type Client struct {
	hc                *http.Client
	quoteURL, swapURL string
	key               string
	timeout           time.Duration
	maxBody           int64
	secrets           []string
}

// New validates opts and returns a Client.
func New(opts Options) (*Client, error) {
	base, err := url.Parse(opts.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, errors.New("jupiter: base URL must be an absolute http(s) URL")
	}
	c := &Client{hc: opts.HTTPClient, key: opts.APIKey, timeout: opts.Timeout, maxBody: opts.MaxResponseBytes}
	if c.hc == nil {
		c.hc = &http.Client{}
	}
	if c.timeout <= 0 {
		c.timeout = defaultTimeout
	}
	if c.maxBody <= 0 {
		c.maxBody = defaultMaxResponseBytes
	}
	c.quoteURL = base.JoinPath(cmpOr(opts.QuotePath, DefaultQuotePath)).String()
	c.swapURL = base.JoinPath(cmpOr(opts.SwapInstructionsPath, DefaultSwapInstructionsPath)).String()
	c.secrets = secretsOf(opts.APIKey, base)
	return c, nil
}

// cmpOr returns s, or def when s is empty.
func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Quote asks for a quote.
func (c *Client) Quote(ctx context.Context, req QuoteRequest) (*Quote, error) {
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("jupiter: %w", err)
	}
	v := url.Values{}
	v.Set("inputMint", req.InputMint)
	v.Set("outputMint", req.OutputMint)
	v.Set("amount", strconv.FormatUint(req.Amount, 10))
	v.Set("slippageBps", strconv.Itoa(int(req.SlippageBps)))
	v.Set("swapMode", string(cmpOr(string(req.SwapMode), string(ExactIn))))
	if req.OnlyDirectRoutes {
		v.Set("onlyDirectRoutes", "true")
	}
	if len(req.Dexes) > 0 {
		v.Set("dexes", strings.Join(req.Dexes, ","))
	}
	u, _ := url.Parse(c.quoteURL) // built by New from a parsed URL
	for k, vs := range u.Query() {
		v[k] = append(v[k], vs...)
	}
	u.RawQuery = v.Encode()
	data, err := c.do(ctx, "quote", http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	q := &Quote{}
	if err := json.Unmarshal(data, q); err != nil {
		return nil, fmt.Errorf("jupiter: quote: decode answer: %w", err)
	}
	if err := q.check(req); err != nil {
		return nil, fmt.Errorf("jupiter: quote: %w", err)
	}
	q.Raw = json.RawMessage(data)
	return q, nil
}

// SwapInstructions turns a quote into the instructions of the swap for req.UserPublicKey.
func (c *Client) SwapInstructions(ctx context.Context, req SwapRequest) (*SwapInstructions, error) {
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("jupiter: %w", err)
	}
	body, err := json.Marshal(swapBody{QuoteResponse: req.Quote.Raw, UserPublicKey: req.UserPublicKey,
		WrapAndUnwrapSol: req.WrapAndUnwrapSol, DestinationTokenAccount: req.DestinationTokenAccount})
	if err != nil {
		return nil, fmt.Errorf("jupiter: swap-instructions: encode request: %w", err)
	}
	data, err := c.do(ctx, "swap-instructions", http.MethodPost, c.swapURL, body)
	if err != nil {
		return nil, err
	}
	s := &SwapInstructions{}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("jupiter: swap-instructions: decode answer: %w", err)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("jupiter: swap-instructions: %w", err)
	}
	return s, nil
}

// Error is a non-2xx answer of the API; Excerpt is the start of its body with secrets redacted.
type Error struct {
	Call    string
	Status  int
	Excerpt string
}

func (e *Error) Error() string {
	return fmt.Sprintf("jupiter: %s: HTTP %d: %s", e.Call, e.Status, e.Excerpt)
}

// maxExcerpt bounds Error.Excerpt.
const maxExcerpt = 256

// do performs one exchange and returns a 2xx body read within bounds.
func (c *Client) do(ctx context.Context, call, method, u string, body []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, fmt.Errorf("jupiter: %s: cannot build request", call)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("x-api-key", c.key)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err
		}
		return nil, fmt.Errorf("jupiter: %s: %s", call, c.redact(err.Error()))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("jupiter: %s: read answer: %s", call, c.redact(err.Error()))
	}
	if int64(len(data)) > c.maxBody {
		return nil, fmt.Errorf("jupiter: %s: answer larger than %d bytes", call, c.maxBody)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		ex := c.redact(strings.ToValidUTF8(string(data), " "))
		if len(ex) > maxExcerpt {
			ex = ex[:maxExcerpt] + "…"
		}
		return nil, &Error{Call: call, Status: resp.StatusCode, Excerpt: strings.Join(strings.Fields(ex), " ")}
	}
	return data, nil
}

// secretsOf collects the secrets of the key and the base URL (query values, user info).
func secretsOf(key string, base *url.URL) []string {
	var out []string
	add := func(s string) {
		if len(s) >= 4 {
			out = append(out, s, url.QueryEscape(s))
		}
	}
	add(key)
	for _, vs := range base.Query() {
		for _, v := range vs {
			add(v)
		}
	}
	if base.User != nil {
		add(base.User.Username())
		if pw, ok := base.User.Password(); ok {
			add(pw)
		}
	}
	return out
}

// redact replaces every secret in s.
func (c *Client) redact(s string) string {
	for _, sec := range c.secrets {
		s = strings.ReplaceAll(s, sec, "[REDACTED]")
	}
	return s
}
