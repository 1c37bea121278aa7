// Package apiwire holds the simulated market API's wire rules: strict
// decoding of request bodies, the spec's error envelope and the answers it
// carries, paging of listings, the Idempotent-Key store of write answers and
// the decoding of E1's strategy-update items.
package apiwire
