// Package deptest holds the tests that enforce the design's shape: the
// dependency direction between keeper's packages (direct imports and
// everything each package links) and the rules every non-test file keeps
// (no Must* of solana-go on input). It has no code of its own.
package deptest
