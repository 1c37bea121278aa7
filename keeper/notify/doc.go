// Package notify delivers keeper's notifications (an action landed, failed or
// was refused; an alert fired or resolved) to webhooks.
//
// A Dispatcher takes messages without blocking the action path, routes each to
// the notifiers its policy names, suppresses repeats of the same message for
// the same policy and target within a window, keeps one incident per policy
// and target for alerts (one "firing" message, one "resolved" message when the
// condition clears, nothing per tick in between), and retries failed
// deliveries with backoff. Payloads carry only what the plan explained: no
// keys, no keyed URLs.
package notify
