// Package apiwire holds the simulated market API's wire: its own types for
// every request and answer, written from the spec
// (/work/shared/spec/lending-market-interface.md) and never shared with
// keeper's market client, so that a misreading of the spec on one side shows
// as a failing test; the strict decoding of request bodies, the spec's error
// envelope, paging of listings and the Idempotent-Key store of write answers.
package apiwire
