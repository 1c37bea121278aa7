package signer

import (
	"maps"
	"slices"

	"github.com/gagliardetto/solana-go"
)

// totals compares what the instructions take from our wallet with the bounds:
// tips against the maximum tip, fees (when we pay) plus tips plus funded
// accounts against the lamport bound, and token amounts per mint. Amounts of
// instructions that do not name their mint could be of any mint, so they are
// added to every mint's total and must fit the smallest bound.
func (c *check) totals() error {
	t := &c.tally
	if t.tips > c.bounds.maxTip {
		return refuse(RuleTipBound, "tips of %d lamports exceed the maximum tip of %d", t.tips, c.bounds.maxTip)
	}
	var fees uint64
	if c.m.keys[0] == c.g.wallet {
		fees = t.fees(c.m)
	}
	rent := t.rent()
	total := satAdd(satAdd(fees, t.tips), rent)
	if total > c.bounds.maxLamports {
		return refuse(RuleLamportsBound, "%d lamports would leave our wallet (fees %d, tips %d, new accounts %d), bound is %d",
			total, fees, t.tips, rent, c.bounds.maxLamports)
	}
	return c.tokenTotals()
}

func (c *check) tokenTotals() error {
	t := &c.tally
	for _, mint := range slices.SortedFunc(maps.Keys(t.tokens), comparePublicKeys) {
		amount := satAdd(t.tokens[mint], t.unknownMint)
		limit, ok := c.bounds.maxTokens[mint]
		if !ok || amount > limit {
			return refuse(RuleTokenBound, "%d of mint %s would leave our wallet, bound is %d", amount, mint, limit)
		}
	}
	if t.unknownMint == 0 {
		return nil
	}
	if len(c.bounds.maxTokens) == 0 {
		return refuse(RuleTokenBound, "%d tokens of an unnamed mint would leave our wallet and no mint has a bound", t.unknownMint)
	}
	for _, mint := range slices.SortedFunc(maps.Keys(c.bounds.maxTokens), comparePublicKeys) {
		if limit := c.bounds.maxTokens[mint]; t.unknownMint > limit {
			return refuse(RuleTokenBound, "%d tokens of an unnamed mint would leave our wallet, more than the bound %d of mint %s",
				t.unknownMint, limit, mint)
		}
	}
	return nil
}

func comparePublicKeys(a, b solana.PublicKey) int { return slices.Compare(a[:], b[:]) }
