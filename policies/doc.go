// Package policies is keeper's policy language: it parses YAML policy files
// into checked, compiled policies, and evaluates a policy over what the
// runtime observed into planned actions.
//
// The package is pure. Parse and ParseAll take bytes and return policies or
// every problem at once, each as `file:line:col: policy "x": message`;
// Evaluate takes a policy, an Observation (market and clmm types), the
// journal's History, the evaluation time and the policy's State, and returns
// a Result; neither does any I/O. LoadFiles is the one helper that reads
// files: those that a config's globs name. docs/policies.md is the policy
// reference: every field, fact, kind, parameter and formula.
//
// # Loading
//
// A policy file is one YAML document whose top level is a mapping holding
// `policies:`, a list. Each policy's node is decoded once, strictly
// (internal/strictyaml), into the Policy itself and its params into the
// struct of the kind the node names: unknown keys (params' too), duplicate
// keys and mistyped scalars are errors with their positions. Semantic
// checks follow: cron schedules (robfig/cron's standard parser; no time
// zones, schedules run in UTC), durations, selections, limits, submit
// settings, impossible params (min above max, a target health not above the
// trigger health, a width that is not positive, ...), `when` expressions
// and alert templates. Names are unique across all files; a duplicate names
// both positions.
//
// # Expressions
//
// `when` conditions and strategy-update rules are written in expr
// (github.com/expr-lang/expr). It was chosen because it compiles against a
// Go struct: every policy's expression is type-checked at load time against
// the fact structs of its target (LoanFacts, PositionFacts, ...), so
// `loan.helth < 0.1` or a condition that is not boolean fails at load, and
// its errors carry a line and column inside the expression, which this
// package maps to the file (plain, quoted and block scalars). expr has no
// I/O and no unbounded loops (only builtins over finite lists), programs are
// limited in size at compile time and in memory at run time, and
// evaluation reuses one VM per evaluation. The builtins that read the clock
// or the time-zone database (now, date, timezone) are disabled: the time is
// the `now` variable, the evaluation time in unix seconds.
//
// # Evaluation
//
// Evaluate derives each target's facts once per Observation and time (with
// keeper/market's health and vault-metric helpers and keeper/clmm's range
// math), walks the selected targets in key order, applies the kind's
// built-in trigger and `when`, then `for` (State), in-flight actions and
// cooldowns (History), and finally the per-run cap and the daily caps, and
// plans for each remaining target the exact write request with its guard
// bounds, a human reason and a deterministic ID. A snapshot older than
// max_data_age plans nothing (fail closed).
package policies
