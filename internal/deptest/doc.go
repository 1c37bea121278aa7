// Package deptest holds the tests that enforce the design's shape: the
// dependency direction between keeper's packages (direct imports and
// everything each package links), at most 30 non-test files a package and
// at most 12 methods a type. It has no code of its own.
package deptest
