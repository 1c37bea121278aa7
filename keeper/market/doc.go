// Package market is the typed HTTP client for the lending market's API (see
// shared/spec/lending-market-interface.md): one request and response type per resource, one method per
// endpoint E1–E12 plus the earn withdrawal-queue reads, and pure helpers for the spec's vault metrics and
// for loan health.
//
// The package imports the Go standard library only. Its wire types follow the spec field for field:
// JSON names are the spec's camelCase names, nullable fields are pointers, optional request fields carry
// omitempty so that request bodies are minimal and exact. Token amounts ([Amount]) and float-ish values
// ([Number]) decode from a JSON number or a JSON string because the service sends both. Integer-coded
// enums are named integer types that never reject an unknown value.
//
// Every call is an HTTP POST with a JSON body. Reads retry retryable failures (5xx, 429, timeouts,
// connection resets) with capped exponential backoff and full jitter, honouring Retry-After. Writes
// (transaction-building calls) take an [IdempotencyKey], send it as the Idempotent-Key header, and retry
// only retryable failures with the same key and byte-identical body, which the service replays safely.
// Failures the service reports arrive as *[APIError]; a 409 matches [ErrIdempotencyConflict].
//
// Where the spec says "not shown", the package makes a documented assumption; each one is listed in
// docs/assumptions.md and, where a deployment could differ, is overridable through [Options] (paths,
// header names, provider).
package market
