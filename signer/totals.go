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
	return checkTotals(c.bounds, &c.tally, c.ourFees())
}

// ourFees is the transaction's estimated fee when our wallet pays it.
func (c *check) ourFees() uint64 {
	if c.m.keys[0] == c.g.wallet {
		return c.tally.fees(c.m)
	}
	return 0
}

// checkTotals compares a tally (of one transaction or of a whole sequence)
// and the fees we pay with the bounds.
func checkTotals(b *bounds, t *tally, fees uint64) error {
	if t.tips > b.maxTip {
		return refuse(RuleTipBound, "tips of %d lamports exceed the maximum tip of %d", t.tips, b.maxTip)
	}
	rent := t.rent()
	total := satAdd(satAdd(fees, t.tips), rent)
	if total > b.maxLamports {
		return refuse(RuleLamportsBound, "%d lamports would leave our wallet (fees %d, tips %d, new accounts %d), bound is %d",
			total, fees, t.tips, rent, b.maxLamports)
	}
	return tokenTotals(b, t)
}

func tokenTotals(b *bounds, t *tally) error {
	for _, mint := range slices.SortedFunc(maps.Keys(t.tokens), comparePublicKeys) {
		amount := satAdd(t.tokens[mint], t.unknownMint)
		limit, ok := b.maxTokens[mint]
		if !ok || amount > limit {
			return refuse(RuleTokenBound, "%d of mint %s would leave our wallet, bound is %d", amount, mint, limit)
		}
	}
	if t.unknownMint == 0 {
		return nil
	}
	if len(b.maxTokens) == 0 {
		return refuse(RuleTokenBound, "%d tokens of an unnamed mint would leave our wallet and no mint has a bound", t.unknownMint)
	}
	for _, mint := range slices.SortedFunc(maps.Keys(b.maxTokens), comparePublicKeys) {
		if limit := b.maxTokens[mint]; t.unknownMint > limit {
			return refuse(RuleTokenBound, "%d tokens of an unnamed mint would leave our wallet, more than the bound %d of mint %s",
				t.unknownMint, limit, mint)
		}
	}
	return nil
}

func comparePublicKeys(a, b solana.PublicKey) int { return slices.Compare(a[:], b[:]) }
