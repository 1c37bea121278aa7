package watch

import (
	"context"
	"fmt"

	"github.com/keeper-project/keeper/internal/redact"
)

// endpoint is the RPC's websocket URL. It may carry a key, so what goes
// wrong with it is told with the URL redacted and the key scrubbed from
// the cause.
type endpoint string

// dialFailed is why connecting failed.
func (u endpoint) dialFailed(err error) error {
	return fmt.Errorf("connecting the websocket %s: %w", redact.URL(string(u)), err)
}

// subscribeFailed is why a subscription could not be made.
func (u endpoint) subscribeFailed(err error) error {
	return fmt.Errorf("subscribing on the websocket %s: %w", redact.URL(string(u)), redact.Of(string(u)).Error(err))
}

// lost is why a subscription stopped: nil when the session was ending
// anyway (ctx done).
func (u endpoint) lost(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("websocket %s lost: %w", redact.URL(string(u)), redact.Of(string(u)).Error(err))
}

// garbled is why a notification could not be read.
func (u endpoint) garbled(err error) error {
	return fmt.Errorf("websocket %s: a notification is not what its subscription sends: %w", redact.URL(string(u)), err)
}
