package api

import (
	"context"
	"crypto/sha256"
	"errors"
	"slices"

	"github.com/keeper-project/keeper/keeper/market"
)

// LoanPages walks every page of E3 from page 0 (q.Page is ignored; q.PageSize is used, else
// Options.PageSize, smaller once the market has refused it: walkSize) until pageInfo.totalPages is
// reached or a page is empty; a response without pageInfo (an older generation) is a single page.
// After the first page has said how many there are, the rest are requested Options.PagesInFlight at a
// time, and an error names the lowest failing page. It hands each page to visit, in page order, as
// soon as the pages before it have been, and keeps none: a walk of any size holds at most
// Options.PagesInFlight pages besides what visit keeps, and a digest of each loan address it has handed
// over (16 bytes), so that a loan that shifted between pages while the walk ran is handed over once:
// its later copies are taken out of their page's Items. walk numbers the walk, from 1.
//
// Each page pins its own oracle snapshot. A page whose snapshotTs differs from page 0's ends the walk,
// and the pages are read again from page 0 with the next walk number, up to Options.SnapshotWalks
// walks in all: visit must then drop what it kept of the earlier walk. When the last walk is still
// mixed the result is a *MixedSnapshotsError (errors.Is ErrMixedSnapshots). An error visit returns
// ends the walk and is returned as it is.
func (l *loans) LoanPages(ctx context.Context, q market.LoansQuery, visit func(walk int, p *market.LoansPage) error) error {
	size, adaptive, err := l.walkSize(q)
	if err != nil {
		return err
	}
	for walk := 1; ; walk++ {
		var seen []float64
		var loans loanSet
		err := loanWalk{l: l, q: q, size: size, adaptive: adaptive}.run(ctx, func(p *market.LoansPage) error {
			if !slices.Contains(seen, p.SnapshotTs) {
				seen = append(seen, p.SnapshotTs)
			}
			if len(seen) > 1 {
				return errMixedWalk
			}
			p.Items = loans.fresh(p.Items)
			return visit(walk, p)
		})
		if !errors.Is(err, errMixedWalk) {
			return err
		}
		mixed := &MixedSnapshotsError{Endpoint: market.EndpointLoansInfo, Walks: walk, SnapshotTs: seen}
		if walk >= l.walks {
			return mixed
		}
		l.log.Warn("Pages of a walk carry different oracle snapshots; reading it again",
			"endpoint", market.EndpointLoansInfo, "walk", walk, "of", l.walks, "err", mixed)
	}
}

// errMixedWalk ends a walk of LoanPages at its first page with another snapshot than page 0's.
var errMixedWalk = errors.New("a page carries another snapshot than page 0")

// loanSet is the loan addresses a walk has handed over, each kept as the first 16 bytes of its SHA-256,
// so that the set holds 16 bytes a loan (some 40 with the map's own) and none of the pages' strings.
// Two of 100,000 addresses share a digest with a probability of about 10^-29.
type loanSet map[[16]byte]struct{}

// fresh returns, in place, the items whose loans the walk has not handed over yet, and records them.
// Items without an address are all kept, as LoansSnapshot.AddPage keeps them.
func (s *loanSet) fresh(items []market.LoanItem) []market.LoanItem {
	if *s == nil {
		*s = loanSet{}
	}
	out := items[:0]
	for i := range items {
		addr := items[i].Loan.Address
		if addr == "" {
			out = append(out, items[i])
			continue
		}
		sum := sha256.Sum256([]byte(addr))
		k := [16]byte(sum[:16])
		if _, dup := (*s)[k]; !dup {
			(*s)[k] = struct{}{}
			out = append(out, items[i])
		}
	}
	clear(items[len(out):])
	return out
}
