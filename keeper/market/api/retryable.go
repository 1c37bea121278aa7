package api

import (
	"context"
	"errors"
	"github.com/keeper-project/keeper/keeper/market"
	"io"
	"net"
	"net/http"
	"syscall"
)

// IsRetryable reports whether err is worth retrying with the same request: HTTP 5xx, 429 and 408, a
// 2xx answer that cannot be decoded (garbled, or cut short by a proxy), timeouts, connection refusals
// and resets, broken pipes, and EOF or a truncated response. A cancelled context, a 409 and every
// other 4xx are not.
func IsRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, market.ErrInvalidRequest) {
		return false
	}
	if ae, ok := errors.AsType[*APIError](err); ok {
		return ae.Malformed || retryableStatus(ae.Status)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	for _, errno := range []error{syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.ECONNABORTED, syscall.EPIPE} {
		if errors.Is(err, errno) {
			return true
		}
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return true
	}
	if dns, ok := errors.AsType[*net.DNSError](err); ok {
		return dns.IsTimeout || dns.IsTemporary
	}
	_, isOp := errors.AsType[*net.OpError](err)
	return isOp
}

// retryableStatus reports whether an HTTP status is worth retrying.
func retryableStatus(status int) bool {
	return status >= 500 || status == http.StatusTooManyRequests || status == http.StatusRequestTimeout
}
