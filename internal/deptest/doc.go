// Package deptest holds the tests that enforce the design's shape: the
// dependency direction between keeper's packages (direct imports and
// everything each package links), the rules every non-test file keeps (no
// Must* of solana-go on input), and that the runtime reaches its
// dependencies only through the interfaces it declares. It has no code of
// its own.
package deptest
