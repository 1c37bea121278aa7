package keeper

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/policies"
)

// observe reads what policy p needs (policies.Policy.Reads), as of now:
// loans (every page of the selected borrowers or loans), CLMM positions
// from chain accounts, earn withdrawal queues, vaults and best quotes.
//
// A policy that reads loans is fed from a walk of their pages shared with
// the policies that read at the same time (loanWalks): it sieves each page
// as it comes and keeps only what it could act on or report, so a run's
// memory does not grow with the number of loans. Other reads are shared
// through the read cache with the other policies of the tick: policies
// whose reads are the same share one Observation, and with it the facts
// derived from it (policies.Evaluate derives them once per Observation and
// second).
func (o *observer) observe(ctx context.Context, p *policies.Policy, sv sieving) (*policies.Observation, error) {
	r := p.Reads(o.wallet.String())
	var obs *policies.Observation
	key, err := json.Marshal(struct {
		Reads  policies.Reads
		Vaults []string `json:",omitempty"`
	}{r, quoteVaults(r, p)})
	switch {
	case r.Loans != nil:
		obs, err = o.observeSieved(ctx, p, r, sv)
	case err != nil:
		obs, err = o.observeAfresh(ctx, p, r)
	default:
		obs, err = cached(ctx, o.reads, "observation:"+string(key), func(ctx context.Context) (*policies.Observation, error) {
			return o.observeAfresh(ctx, p, r)
		})
	}
	if err != nil {
		return nil, fmt.Errorf("observing for policy %s: %w", p.Name, err)
	}
	return obs, nil
}

// sieving is what a policy's run knows that its page-by-page observation
// needs: the policy's `for` state (read only), the run's scope (nil: every
// target) and when the policy runs next (zero: not scheduled), which a
// walk that cannot end before then reports.
type sieving struct {
	state *policies.State
	scope *policies.Scope
	due   time.Time
}

// observeSieved observes reads r for policy p from a shared walk of the
// loans' pages, each page evaluated at once by a policies.Sieve. The
// Observation returned carries the sieve's time, at which the run
// evaluates it.
func (o *observer) observeSieved(ctx context.Context, p *policies.Policy, r policies.Reads, sv sieving) (*policies.Observation, error) {
	base := &policies.Observation{Wallet: o.wallet.String(), SnapshotTime: o.now(), Tokens: o.tokens()}
	if base.Tokens == nil {
		base.Tokens = map[string]policies.Token{}
	}
	rd := &loanReader{query: *r.Loans, needs: pageNeedsOf(r), due: sv.due,
		sieve: func(now time.Time) *policies.Sieve {
			if now.Before(base.SnapshotTime) {
				base.SnapshotTime = now
			}
			return policies.NewSieve(p, base, now, sv.state, sv.scope)
		}}
	if err := o.walks.read(ctx, rd); err != nil {
		return nil, err
	}
	if rd.active == nil {
		return nil, fmt.Errorf("market: %s: the walk handed over no page", market.EndpointLoansInfo)
	}
	return rd.active.Observation(), nil
}

// quoteVaults is what of p, besides its reads, its quotes depend on.
func quoteVaults(r policies.Reads, p *policies.Policy) []string {
	if !r.Quotes {
		return nil
	}
	return p.Select.Vaults
}

// observeAfresh builds the Observation of reads r for policy p (nil: a
// read for people, `keeper wallet` and reports). Loans are read whole,
// every one of them, from a walk shared with the reads that come with it:
// a policy's run reads them through observe instead, which keeps only
// what the policy could act on.
func (o *observer) observeAfresh(ctx context.Context, p *policies.Policy, r policies.Reads) (*policies.Observation, error) {
	obs := &policies.Observation{Wallet: o.wallet.String(), SnapshotTime: o.now(), Tokens: o.tokens()}
	var err error
	if r.Loans != nil {
		var snap *market.LoansSnapshot
		if snap, err = o.walks.whole(ctx, *r.Loans); err == nil {
			obs.Loans = snap.Items
			if t := snapshotTime(snap.SnapshotTs); !t.IsZero() && t.Before(obs.SnapshotTime) {
				obs.SnapshotTime = t
			}
		}
	}
	if err == nil && r.Positions {
		err = o.observePositions(ctx, obs)
	}
	if err == nil {
		err = o.observeWithdrawals(ctx, r.EarnVaults, obs)
	}
	if err == nil && r.Vaults {
		err = o.observeVaults(ctx, obs)
	}
	if err == nil && r.Loops {
		err = o.observeLoops(ctx, obs)
	}
	if err == nil && r.Quotes {
		err = o.observeQuotes(ctx, quoteVaults(r, p), obs, nil)
	}
	if err != nil {
		return nil, err
	}
	o.learnTokens(ctx, obs)
	if r.Vaults {
		o.prices.priceVaults(ctx, obs)
	}
	if r.PositionValues {
		o.prices.pricePositions(ctx, obs)
	}
	if r.LoanValues {
		o.prices.priceLoans(ctx, obs)
	}
	return obs, nil
}

// snapshotTime reads the API's snapshotTs: unix seconds, or milliseconds
// when the number is too large to be seconds (docs/assumptions.md).
func snapshotTime(ts float64) time.Time {
	switch {
	case ts <= 0 || math.IsNaN(ts) || math.IsInf(ts, 0):
		return time.Time{}
	case ts > 1e12:
		return time.UnixMilli(int64(ts)).UTC()
	}
	sec, frac := math.Modf(ts)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC()
}

// observePositions reads the CLMM collateral positions of the observed
// loans from chain in one batch, with their pools and the tick arrays that
// give what each is owed. The API does not say which dex holds a
// position, so both layouts are asked for and the one that decodes wins.
func (o *observer) observePositions(ctx context.Context, obs *policies.Observation) error {
	type slot struct {
		loan  string
		index int
	}
	var reqs []clmm.PositionRequest
	var slots []slot
	for _, item := range obs.Loans {
		for _, c := range item.Collateral {
			if !c.IsPool() {
				continue
			}
			pool, err1 := solana.PublicKeyFromBase58(c.AssetIdentifier)
			mint, err2 := solana.PublicKeyFromBase58(c.AssetMint)
			if err1 != nil || err2 != nil {
				continue
			}
			for _, d := range o.dexes {
				reqs = append(reqs, clmm.PositionRequest{Dex: d, Pool: pool, PositionMint: mint})
				slots = append(slots, slot{item.Loan.Address, c.Index})
			}
		}
	}
	if len(reqs) == 0 {
		return nil
	}
	states, err := o.positions.Read(ctx, reqs)
	if err != nil {
		return err
	}
	n := len(o.dexes)
	for i := 0; i < len(states); i += n {
		best := pickState(states[i : i+n])
		obs.Positions = append(obs.Positions, policies.PositionObservation{Loan: slots[i].loan, CollateralIndex: slots[i].index, State: best})
	}
	return nil
}

// pickState keeps the dex whose accounts decoded, else the most telling error.
func pickState(states []clmm.PositionState) clmm.PositionState {
	if i := slices.IndexFunc(states, func(s clmm.PositionState) bool { return s.Err == nil }); i >= 0 {
		return states[i]
	}
	return states[0]
}

// observeWithdrawals reads, for each earn vault, its withdrawal queue and
// the wallet's earn position beside it: the position's open withdrawal
// requests (onChainRequestAddr, named by the spec) say which queued
// requests policies may claim. Without a wallet there is nothing to claim
// and no position to read.
func (o *observer) observeWithdrawals(ctx context.Context, vaults []string, obs *policies.Observation) error {
	for _, vault := range vaults {
		req := market.WithdrawalQueueRequest{Address: vault, Wallet: o.wallet.String()}
		q, err := cached(ctx, o.reads, "queue:"+vault, func(ctx context.Context) (*market.WithdrawalQueue, error) {
			return o.market.WithdrawalQueue(ctx, req)
		})
		if err != nil {
			return err
		}
		obs.Withdrawals = append(obs.Withdrawals, *q)
		if o.wallet.IsZero() {
			continue
		}
		pos, err := cached(ctx, o.reads, "earn-position:"+vault, func(ctx context.Context) (*market.EarnPosition, error) {
			return earnPosition(ctx, o.market, vault, o.wallet.String())
		})
		if err != nil {
			return err
		}
		obs.EarnPositions = append(obs.EarnPositions, *pos)
	}
	return nil
}

// earnPosition reads wallet's position in earn vault from m, naming the
// vault when the answer does not and refusing an answer for another vault,
// so that its open requests are matched against that vault's queue only.
func earnPosition(ctx context.Context, m Market, vault, wallet string) (*market.EarnPosition, error) {
	p, err := m.EarnPosition(ctx, market.EarnPositionRequest{Address: vault, Wallet: wallet})
	if err != nil {
		return nil, err
	}
	if p.Address != "" && p.Address != vault {
		return nil, fmt.Errorf("earn position of vault %s: the answer is for vault %s", vault, market.Echo(p.Address))
	}
	out := *p
	out.Address = vault
	return &out, nil
}

func (o *observer) observeVaults(ctx context.Context, obs *policies.Observation) error {
	vaults, err := cached(ctx, o.reads, "vaults", func(ctx context.Context) ([]market.Vault, error) {
		return o.market.AllVaults(ctx, market.VaultsQuery{IncludeRewards: true})
	})
	obs.Vaults = vaults
	return err
}

// observeQuotes asks for the best quote of every collateral and term the
// selected vaults' strategies offer, and of every observed loan's token
// collaterals at its ledgers' terms (for refinance_expected; pool
// collateral is not quoted, see loanQuoteRequests). Each distinct request
// is asked once; memo, when not nil, keeps the answers across the pages of
// a walk, so that every page is decided on the same quotes and a long walk
// asks each question once.
func (o *observer) observeQuotes(ctx context.Context, vaults []string, obs *policies.Observation, memo map[string][]market.Quote) error {
	var reqs []market.QuoteRequest
	for _, v := range obs.Vaults {
		if len(vaults) == 0 || slices.Contains(vaults, v.Address) {
			reqs = append(reqs, quoteRequests(v.PrincipalMint, vaultTerms(v))...)
		}
	}
	for _, item := range obs.Loans {
		reqs = append(reqs, loanQuoteRequests(item)...)
	}
	asked := map[string]bool{}
	for _, req := range reqs {
		raw, _ := json.Marshal(req)
		key := string(raw)
		if asked[key] {
			continue // many loans ask the same question
		}
		asked[key] = true
		quotes, ok := memo[key]
		if !ok {
			var err error
			quotes, err = cached(ctx, o.reads, "quotes:"+key, func(ctx context.Context) ([]market.Quote, error) {
				return o.market.BestQuotes(ctx, req)
			})
			if err != nil {
				return err
			}
			if memo != nil {
				memo[key] = quotes
			}
		}
		d := market.StrategyDuration{DurationType: req.DurationType, Duration: req.Duration}
		for _, q := range quotes {
			obs.Quotes = append(obs.Quotes, policies.QuoteObservation{PrincipalMint: req.PrincipalMint, Duration: d, Quote: q})
		}
	}
	return nil
}

// vaultTerms maps each term v's strategy offers to the collaterals offered at it.
func vaultTerms(v market.Vault) map[market.StrategyDuration][]string {
	byTerm := map[market.StrategyDuration][]string{}
	for _, t := range v.VaultStrategy.CollateralTerms {
		apys, err := t.APYs()
		if err != nil {
			continue
		}
		for d := range apys {
			byTerm[d] = append(byTerm[d], t.AssetIdentifier)
		}
	}
	return byTerm
}

// loanQuoteRequests asks, per ledger principal and term of item, for quotes
// against the loan's token collaterals. Pool (CLMM) collateral is not
// quoted: E6 names a collateral by SPL mint ({Spl: {mint}}), and a pool
// collateral's identifier is its pool id, not a mint; the facts its quote
// would decide are unknown (policies: refinance_expected).
func loanQuoteRequests(item market.LoanItem) []market.QuoteRequest {
	byMint := map[string]map[market.StrategyDuration][]string{}
	for _, l := range item.Ledgers {
		d := market.StrategyDuration{DurationType: l.DurationType, Duration: l.Duration}
		for _, c := range item.Collateral {
			if c.IsPool() {
				continue
			}
			if byMint[l.PrincipalMint] == nil {
				byMint[l.PrincipalMint] = map[market.StrategyDuration][]string{}
			}
			byMint[l.PrincipalMint][d] = append(byMint[l.PrincipalMint][d], c.AssetMint)
		}
	}
	var out []market.QuoteRequest
	for _, mint := range slices.Sorted(maps.Keys(byMint)) {
		out = append(out, quoteRequests(mint, byMint[mint])...)
	}
	return out
}

// quoteRequests is one best-quote request per term, naming every
// collateral offered at that term, in a stable order.
func quoteRequests(mint string, byTerm map[market.StrategyDuration][]string) []market.QuoteRequest {
	terms := slices.SortedFunc(maps.Keys(byTerm), func(a, b market.StrategyDuration) int { return strings.Compare(a.Key(), b.Key()) })
	out := make([]market.QuoteRequest, 0, len(terms))
	for _, d := range terms {
		req := market.QuoteRequest{PrincipalMint: mint, Duration: d.Duration, DurationType: d.DurationType}
		ids := slices.Compact(slices.Sorted(slices.Values(byTerm[d])))
		for _, id := range ids {
			req.CollateralFilter = append(req.CollateralFilter, market.CollateralFilter{AssetData: market.SplAssetData(id)})
		}
		out = append(out, req)
	}
	return out
}

// tokens is what the config says of mints, for readable amounts: a copy
// each Observation may complete with what the chain says.
func (o *observer) tokens() map[string]policies.Token {
	if len(o.configTokens) == 0 {
		return nil
	}
	return maps.Clone(o.configTokens)
}

// observeLoops reads the loop (E12) of every pair of an observed vault's
// principal mint and one of its strategy's collaterals. Each pair is asked
// for by the identifier "{PRINCIPAL_MINT}-{COLLATERAL_MINT}" the spec
// names, one request per pair, so a record is attributed to its pair
// without trusting the record's own mint fields (an assumption). A pair
// without a loop answers an empty list; more than one record for a pair is
// a bad answer.
func (o *observer) observeLoops(ctx context.Context, obs *policies.Observation) error {
	for _, pair := range loopPairs(obs.Vaults) {
		id := pair[0] + "-" + pair[1]
		loops, err := cached(ctx, o.reads, "loop:"+id, func(ctx context.Context) ([]market.Loop, error) {
			return o.market.Loops(ctx, market.LoopsQuery{Identifiers: []string{id}})
		})
		if err != nil {
			return err
		}
		switch len(loops) {
		case 0:
		case 1:
			obs.Loops = append(obs.Loops, policies.LoopObservation{PrincipalMint: pair[0], CollateralMint: pair[1], Loop: loops[0]})
		default:
			return fmt.Errorf("market: %s: %d loop records for the one identifier %s", market.EndpointLoopInfo, len(loops), id)
		}
	}
	return nil
}

// loopPairs returns each (principal mint, collateral) pair of the vaults'
// strategies once, in order. A strategy names pool collateral by its pool
// id, which no loop identifier holds: such a pair answers no loop.
func loopPairs(vaults []market.Vault) [][2]string {
	var out [][2]string
	for _, v := range vaults {
		for _, t := range v.VaultStrategy.CollateralTerms {
			out = append(out, [2]string{v.PrincipalMint, t.AssetIdentifier})
		}
	}
	slices.SortFunc(out, func(a, b [2]string) int { return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1])) })
	return slices.Compact(out)
}
