package policies

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

// derived holds the facts of every target of an Observation at one time,
// each list sorted by target key.
type derived struct {
	now         time.Time
	loans       []loanEntry
	loanByAddr  map[string]*loanEntry // built only when there are positions
	positions   []positionEntry
	withdrawals []withdrawalEntry
	vaults      []vaultEntry
}

// derive computes the facts of o at now.
func derive(o *Observation, now time.Time) *derived {
	d := &derived{now: now}
	q := indexQuotes(o.Quotes)
	d.loans = deriveLoans(o, now, q)
	if len(o.Positions) > 0 {
		d.loanByAddr = make(map[string]*loanEntry, len(d.loans))
		for i := range d.loans {
			d.loanByAddr[d.loans[i].facts.Address] = &d.loans[i]
		}
		d.positions = derivePositions(o, d.loanByAddr)
	}
	d.withdrawals = deriveWithdrawals(o.Withdrawals, o.EarnPositions)
	d.vaults = deriveVaults(o, now)
	return d
}

// principalPrice prices principal smallest units from Tokens, when known.
func principalPrice(tokens map[string]Token) market.PrincipalPriceFunc {
	if len(tokens) == 0 {
		return nil
	}
	return func(mint string) (float64, bool) {
		t, ok := tokens[mint]
		if !ok || !(t.PriceUSD > 0) {
			return 0, false
		}
		return t.PriceUSD / pow10(t.Decimals), true
	}
}

// pow10 returns 10^n.
func pow10(n uint8) float64 {
	f := 1.0
	for range n {
		f *= 10
	}
	return f
}

// quoteKey identifies the best quote for a principal, term and collateral.
type quoteKey struct {
	mint       string
	duration   market.StrategyDuration
	collateral string
}

// indexQuotes maps each quote key to its quote, keeping the one offering
// the largest amount when the key repeats.
func indexQuotes(qs []QuoteObservation) map[quoteKey]market.Quote {
	if len(qs) == 0 {
		return nil
	}
	m := make(map[quoteKey]market.Quote, len(qs))
	for _, q := range qs {
		k := quoteKey{q.PrincipalMint, q.Duration, q.Quote.CollateralIdentifier}
		if prev, ok := m[k]; !ok || q.Quote.Amount > prev.Amount {
			m[k] = q.Quote
		}
	}
	return m
}

// sortedBy returns the indexes 0..n-1 ordered by key(i), ties by index.
func sortedBy(n int, key func(i int) string) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(key(a), key(b)) })
	return idx
}

// withdrawalEntry is one withdrawal request and its facts. Listed says
// the earn position of its vault lists it among its open withdrawal
// requests (by onChainRequestAddr, the spec's name for the id E10 takes).
type withdrawalEntry struct {
	req    *market.WithdrawalRequest
	facts  WithdrawalFacts
	listed bool
}

// deriveWithdrawals derives the facts of every queued request, and whether
// the earn position of its vault lists it.
func deriveWithdrawals(queues []market.WithdrawalQueue, positions []market.EarnPosition) []withdrawalEntry {
	type key struct{ vault, request string }
	open := map[key]bool{}
	for _, p := range positions {
		for _, r := range p.OpenWithdrawalRequests {
			open[key{p.Address, r.OnChainRequestAddr}] = true
		}
	}
	var out []withdrawalEntry
	for qi := range queues {
		q := &queues[qi]
		for ri := range q.Requests {
			r := &q.Requests[ri]
			st := r.State()
			out = append(out, withdrawalEntry{req: r, listed: open[key{q.Address, r.RequestID}], facts: WithdrawalFacts{
				Vault: q.Address, RequestID: r.RequestID, Wallet: r.Wallet,
				Requested: r.RequestedAmount.Uint64(), Filled: r.FilledAmount.Uint64(),
				Claimed: r.ClaimedAmount.Uint64(), Claimable: r.FilledAmount.Uint64(),
				State:       strings.ReplaceAll(st.String(), "-", "_"),
				FullyFilled: r.RequestedAmount > 0 && r.FilledAmount >= r.RequestedAmount,
			}})
		}
	}
	slices.SortStableFunc(out, func(a, b withdrawalEntry) int {
		return cmp.Or(strings.Compare(a.facts.RequestID, b.facts.RequestID), strings.Compare(a.facts.Vault, b.facts.Vault))
	})
	return out
}
