//go:build !cgo

package signer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTokenNeedsCgo: a keeper built without cgo refuses the pkcs11 key
// source, in check and at start, saying it needs the cgo build.
func TestTokenNeedsCgo(t *testing.T) {
	module := filepath.Join(t.TempDir(), "libhsm.so")
	if err := os.WriteFile(module, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	src := TokenSource{Module: module, TokenLabel: "hsm", KeyLabel: "wallet", PIN: "1234"}
	if err := CheckTokenSource(src); !errors.Is(err, ErrTokenNeedsCgo) || !strings.Contains(err.Error(), "CGO_ENABLED=1") {
		t.Errorf("CheckTokenSource: %v", err)
	}
	if _, err := LoadToken(t.Context(), src); !errors.Is(err, ErrTokenNeedsCgo) {
		t.Errorf("LoadToken: %v", err)
	}
}
