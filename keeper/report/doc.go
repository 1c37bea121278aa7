// Package report computes what `keeper report` prints for vault operators
// from the market's answers: a reward budget split by time-weighted
// collateral (E7), the depositors of each vault (E5) and, with the facts
// policies use, each vault's metrics and loops (E11, E12).
//
// The package reads nothing itself: the runtime fetches the answers and the
// command formats the results. Splits use exact integer arithmetic.
package report
