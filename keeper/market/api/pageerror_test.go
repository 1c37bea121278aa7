package api

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
)

// TestPageErrorSaysItsPrefixOnce: a failed page names the endpoint and the
// page once, though the read's error already names the endpoint, and still
// unwraps to the cause.
func TestPageErrorSaysItsPrefixOnce(t *testing.T) {
	cause := fmt.Errorf("market: loans_info: dial tcp 127.0.0.1:7070: %w", syscall.ECONNREFUSED)
	err := error(&pageError{ep: "loans_info", page: 0, err: cause})
	if got, want := err.Error(), "market: loans_info: page 0: dial tcp 127.0.0.1:7070: connection refused"; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Error("the page's error does not unwrap to its cause")
	}
}
