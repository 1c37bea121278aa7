// Package market is the model of the lending market's API (see shared/spec/lending-market-interface.md):
// one request and response type per resource of endpoints E1–E12 and the earn withdrawal-queue reads,
// the strict decoding of every answer, and pure helpers for the spec's vault metrics, PnL, APY and loan
// health. It does no I/O: the HTTP client is keeper/market/api.
//
// Its wire types follow the spec field for field: JSON names are the spec's camelCase names, nullable
// fields are pointers, optional request fields carry omitempty so that request bodies are minimal and
// exact. Token amounts ([Amount]) and float-ish values ([Number]) decode from a JSON number or a JSON
// string because the service sends both. Integer-coded enums are named integer types that never reject
// an unknown value. Answers are decoded with github.com/go-json-experiment/json, the mirror of
// encoding/json/v2, through its v1 package: encoding/json's semantics on v2's decoder, which validates
// as it decodes (a third of encoding/json's CPU for a page of loans). Apart from it the package imports
// the standard library only.
//
// Where the spec says "not shown", the package makes a documented assumption; each one is listed in
// docs/assumptions.md and, where a deployment could differ, is overridable through [Options] (paths,
// header names, provider).
package market
