package notify

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// Format selects a webhook's payload.
type Format string

// The payload formats.
const (
	// JSON posts the Message as a JSON object (the generic webhook).
	JSON Format = "webhook"
	// Slack posts {"text": ...}, which Slack-compatible incoming webhooks accept.
	Slack Format = "slack"
)

// Webhook posts messages to one URL.
type Webhook struct {
	retries int // -1: the dispatcher's default
	name    string
	url     string // may carry a token: never printed
	format  Format
	client  *http.Client
	// chatID is the Telegram chat, routingKey the PagerDuty integration
	// key (a secret: never printed).
	chatID, routingKey string
	// signingSecret, when set, signs each body (SignatureHeader).
	signingSecret []byte
	now           func() time.Time
}

// NewWebhook returns a notifier called name that posts to rawURL in format.
// A nil client gets one with the given timeout.
func NewWebhook(name, rawURL string, format Format, client *http.Client, timeout time.Duration) (*Webhook, error) {
	if !slices.Contains(Formats, format) || format == EmailFormat {
		return nil, fmt.Errorf("notifier %s: unknown format %q", name, format)
	}
	if u, err := url.Parse(rawURL); err != nil || u.Host == "" {
		return nil, fmt.Errorf("notifier %s: invalid URL", name)
	}
	if client == nil {
		client = &http.Client{Timeout: timeout}
	}
	return &Webhook{retries: -1, name: name, url: rawURL, format: format, client: client, now: time.Now}, nil
}

// WithRetries sets how many times a failed delivery to w is tried again,
// instead of the dispatcher's default.
func (w *Webhook) WithRetries(n int) *Webhook {
	w.retries = max(n, 0)
	return w
}

// Retries reports w's own retry count, or -1 for the dispatcher's default.
func (w *Webhook) Retries() int { return w.retries }

// Name returns the notifier's name from config.
func (w *Webhook) Name() string { return w.name }

// Send delivers m once. The error names the notifier and the HTTP status but
// never the URL.
func (w *Webhook) Send(ctx context.Context, m Message) error {
	body, skip, err := w.payload(m)
	if err != nil {
		return fmt.Errorf("notifier %s: encoding: %w", w.name, err)
	}
	if skip {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("notifier %s: building request failed", w.name)
	}
	req.Header.Set("Content-Type", "application/json")
	if len(w.signingSecret) > 0 {
		req.Header.Set(SignatureHeader, Signature(w.signingSecret, w.now(), body))
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return fmt.Errorf("notifier %s: %w", w.name, stripURL(err))
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("notifier %s: HTTP %d", w.name, resp.StatusCode)
	}
	return nil
}

// stripURL drops the URL that net/http puts into its errors.
func stripURL(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return fmt.Errorf("%s: %w", ue.Op, ue.Err)
	}
	return err
}
