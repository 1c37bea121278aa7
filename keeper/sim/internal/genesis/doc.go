// Package genesis compiles a scenario (package scenario) into what the
// simulator starts from: the market's catalogue, the chain's genesis
// (mints, balances and program accounts) and the events scripted on the
// sim clock, checking every value and reference and reporting each problem
// at its position in the scenario file.
package genesis
