package chain

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/keeper-project/keeper/internal/redact"
)

// sigWatcher tells a transaction's confirmation loop the moment the node
// says the signature reached the client's commitment (signatureSubscribe
// over the RPC's websocket), so that keeper does not wait for its next
// status poll. The notification is the node's word at that commitment, as
// a getSignatureStatuses answer is, and settles the transaction the same
// way (landed, or failed with the error it carries); until one comes,
// polling goes on whatever the websocket does, so a lost or late
// notification changes nothing but timing.
//
// One connection serves every watch. It is made on first use; when it cannot
// be made, or breaks, watches fall back to polling alone and a new connection
// is tried at most once per wsRetry.
type sigWatcher struct {
	url        string // ws:// or wss://; "" disables the watcher
	secrets    redact.Secrets
	commitment rpc.CommitmentType
	log        *slog.Logger

	mu       sync.Mutex
	conn     *PubSub   // guarded by mu; nil when not connected
	downTill time.Time // guarded by mu; no new connection before it
}

// wsRetry is the least time between two attempts to connect the websocket.
const wsRetry = 30 * time.Second

// wsConnectTimeout bounds one attempt to connect the websocket.
const wsConnectTimeout = 5 * time.Second

// WebsocketURL derives the RPC's websocket endpoint from its HTTP one, as
// Solana's clients do: the same host, port, path and query with ws:// for
// http:// and wss:// for https://. It returns "" for any other scheme.
func WebsocketURL(rpcURL string) string {
	u, err := url.Parse(rpcURL)
	if err != nil {
		return ""
	}
	switch u.Scheme {
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	case "ws", "wss":
	default:
		return ""
	}
	return u.String()
}

// watch sends sig's status on fired when the node notifies that it reached
// the commitment, and reports false when the websocket is off: then nothing
// is ever sent, and the caller's polling decides alone. The connection and
// the subscription are made in the background, so the send does not wait
// for them (a signature that reaches the commitment before the
// subscription does is notified at the next block, as on a validator).
// The watch, and a send nobody takes, end with ctx.
func (w *sigWatcher) watch(ctx context.Context, sig solana.Signature, fired chan<- Status) bool {
	if w == nil || w.url == "" {
		return false
	}
	go w.await(ctx, sig, fired)
	return true
}

// await subscribes to sig and sends its notified status on fired; it gives
// up quietly when no websocket serves or ctx ends.
func (w *sigWatcher) await(ctx context.Context, sig solana.Signature, fired chan<- Status) {
	conn := w.connect(ctx)
	if conn == nil {
		return
	}
	sub, err := conn.Subscribe(ctx, "signatureSubscribe", []any{sig.String(), map[string]any{"commitment": w.commitment}}, "signatureUnsubscribe")
	if err != nil {
		if ctx.Err() == nil {
			w.broken(conn, err)
		}
		return
	}
	defer sub.Unsubscribe()
	raw, err := sub.Next(ctx)
	if err != nil {
		if ctx.Err() == nil {
			w.broken(conn, err)
		}
		return
	}
	var res signatureNotification
	if err := json.Unmarshal(raw, &res); err != nil {
		w.broken(conn, fmt.Errorf("a signature notification is not one: %w", err))
		return
	}
	select {
	case fired <- Status{Signature: sig, Found: true, Slot: res.Context.Slot,
		Confirmation: rpc.ConfirmationStatusType(w.commitment), Err: normalize(res.Value.Err)}:
	case <-ctx.Done():
	}
}

// signatureNotification is the result of a signatureSubscribe notification.
type signatureNotification struct {
	Context struct {
		Slot uint64 `json:"slot"`
	} `json:"context"`
	Value struct {
		Err any `json:"err"`
	} `json:"value"`
}

// connect returns the connection, making it when there is none and the last
// failure is older than wsRetry.
func (w *sigWatcher) connect(ctx context.Context) *PubSub {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn != nil || time.Now().Before(w.downTill) {
		return w.conn
	}
	cctx, cancel := context.WithTimeout(ctx, wsConnectTimeout)
	defer cancel()
	conn, err := DialPubSub(cctx, w.url)
	if err != nil {
		w.downTill = time.Now().Add(wsRetry)
		w.log.Info("No websocket for confirmations; polling signature statuses alone",
			"endpoint", redact.URL(w.url), "err", w.secrets.Error(err), "retry_in", wsRetry)
		return nil
	}
	w.conn = conn
	w.log.Debug("Websocket for confirmations connected", "endpoint", redact.URL(w.url))
	return conn
}

// broken drops conn after a failure, so the next watch connects anew.
func (w *sigWatcher) broken(conn *PubSub, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn != conn {
		return
	}
	w.conn = nil
	w.downTill = time.Now().Add(wsRetry)
	conn.Close()
	w.log.Info("Websocket for confirmations lost; polling signature statuses alone",
		"endpoint", redact.URL(w.url), "err", w.secrets.Error(err), "retry_in", wsRetry)
}

// close ends the connection, if any.
func (w *sigWatcher) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
}
