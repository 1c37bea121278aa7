// Package deptest holds the test that enforces the design's dependency
// direction between keeper's packages; it has no code of its own.
package deptest
