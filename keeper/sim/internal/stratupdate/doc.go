// Package stratupdate turns the simulated market's E1 strategy-update request into the strategy
// program's term items, validating it against the strategy's terms.
package stratupdate
