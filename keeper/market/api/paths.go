package api

import (
	"cmp"
	"fmt"
	"strings"
)

// Paths holds the vendor stand-in segments of endpoint paths, the earn provider value, and the
// assumed earn-queue paths. Every member is overridable; an empty member takes its default.
type Paths struct {
	// DexA is the segment of the dex-a CLMM routes (E4). Default "dex-a".
	DexA string
	// DexB is the segment of the dex-b CLMM routes (E8). Default "dex-b".
	DexB string
	// Gateway is the first segment of the earn routes (E10 and the earn reads). Default "gateway".
	Gateway string
	// Provider is the earn provider sent when a request leaves it empty. Default "provider-a".
	Provider string
	// EarnPosition is the earn-position read, below Gateway (assumed). Default "earn/vaults/position".
	EarnPosition string
	// EarnWithdrawQueue is the withdrawal-queue read, below Gateway (assumed).
	// Default "earn/vaults/withdraw_queue".
	EarnWithdrawQueue string
	// EarnWithdrawRequest is the withdraw-request builder, below Gateway (assumed).
	// Default "earn/vaults/withdraw_request/tx".
	EarnWithdrawRequest string
}

// DefaultPaths returns the stand-in segments and the assumed earn paths.
func DefaultPaths() Paths {
	return Paths{
		DexA:                "dex-a",
		DexB:                "dex-b",
		Gateway:             "gateway",
		Provider:            "provider-a",
		EarnPosition:        "earn/vaults/position",
		EarnWithdrawQueue:   "earn/vaults/withdraw_queue",
		EarnWithdrawRequest: "earn/vaults/withdraw_request/tx",
	}
}

// withDefaults fills empty members from DefaultPaths.
func (p Paths) withDefaults() Paths {
	d := DefaultPaths()
	p.DexA = cmp.Or(p.DexA, d.DexA)
	p.DexB = cmp.Or(p.DexB, d.DexB)
	p.Gateway = cmp.Or(p.Gateway, d.Gateway)
	p.Provider = cmp.Or(p.Provider, d.Provider)
	p.EarnPosition = cmp.Or(p.EarnPosition, d.EarnPosition)
	p.EarnWithdrawQueue = cmp.Or(p.EarnWithdrawQueue, d.EarnWithdrawQueue)
	p.EarnWithdrawRequest = cmp.Or(p.EarnWithdrawRequest, d.EarnWithdrawRequest)
	return p
}

// validate checks that segments are single path segments and earn paths are relative paths.
func (p Paths) validate() error {
	for name, seg := range map[string]string{"DexA": p.DexA, "DexB": p.DexB, "Gateway": p.Gateway} {
		if strings.Contains(seg, "/") || !validPath(seg) {
			return fmt.Errorf("paths: %s %q must be one path segment of [A-Za-z0-9._~-]", name, seg)
		}
	}
	for name, path := range map[string]string{
		"EarnPosition": p.EarnPosition, "EarnWithdrawQueue": p.EarnWithdrawQueue,
		"EarnWithdrawRequest": p.EarnWithdrawRequest,
	} {
		if !validPath(path) {
			return fmt.Errorf("paths: %s %q must be a relative path of [A-Za-z0-9._~-] segments", name, path)
		}
	}
	return nil
}

// validPath reports whether p is a relative path of non-empty, non-dot segments of unreserved URL
// characters.
func validPath(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
		for _, c := range seg {
			if !isUnreserved(c) {
				return false
			}
		}
	}
	return true
}

// isUnreserved reports whether c is an RFC 3986 unreserved character.
func isUnreserved(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}
