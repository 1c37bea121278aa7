// Package state is the account data of the simulated market's programs: a
// loan's and a strategy's account (an 8-byte discriminator followed by
// JSON) and an earn withdrawal request's 128-byte account, with what the
// programs compute from them (interest, outstanding debt, term changes).
package state
