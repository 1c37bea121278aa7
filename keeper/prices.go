package keeper

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/prices"
	"github.com/keeper-project/keeper/policies"
)

// newPriceBook returns the book of the config's price sources, reading
// Pyth accounts through ar.
func newPriceBook(c config.Prices, ar accountReader) (*prices.Book, error) {
	sources := make(map[string]prices.Source, len(c.Feeds))
	for mint, f := range c.Feeds {
		if f.Pyth == "" {
			sources[mint] = prices.Source{USD: f.USD}
			continue
		}
		id, err := prices.ParseFeedID(f.Pyth)
		if err != nil {
			return nil, fmt.Errorf("prices.feeds.%s: %w", mint, err)
		}
		var account solana.PublicKey
		if f.Account != "" {
			if account, err = solana.PublicKeyFromBase58(f.Account); err != nil {
				return nil, fmt.Errorf("prices.feeds.%s.account: %w", mint, err)
			}
		}
		if sources[mint], err = prices.PythSource(id, account); err != nil {
			return nil, fmt.Errorf("prices.feeds.%s: %w", mint, err)
		}
	}
	read := readAs(ar, func(a *chain.Account) *prices.Account { return &prices.Account{Owner: a.Owner, Data: a.Data} })
	return prices.NewBook(sources, prices.Limits{MaxAge: c.MaxAge, MaxConfidence: c.MaxConfidence}, read), nil
}

// priceVaults prices the mints obs's vault rewards are valued with: the
// principal and reward mints of every vault with a reward schedule active
// on the chain's clock (read with the prices; obs.ChainTime). It runs after
// learnTokens: a price per whole token needs the mint's decimals. A mint it
// cannot price is named in obs.Unpriced with why, counted, and logged when
// why changes; the facts that need it are unknown.
func (p *pricer) priceVaults(ctx context.Context, obs *policies.Observation) {
	candidates := rewardValueMints(obs.Vaults, func(market.RewardSchedule) bool { return true })
	if len(candidates) == 0 {
		return
	}
	res := p.book.Prices(ctx, candidates, p.now())
	now := p.now()
	if !res.ChainTime.IsZero() {
		now, obs.ChainTime = res.ChainTime, res.ChainTime
	}
	unix := market.UnixTimeOf(now)
	needed := rewardValueMints(obs.Vaults, func(s market.RewardSchedule) bool {
		return s.RewardStartTime <= unix && unix <= s.RewardEndTime
	})
	p.applyPrices(obs, needed, res)
}

// pricePositions prices what claim-fees by value needs: the pool mints of
// obs's positions, and SOL for the claim's cost.
func (p *pricer) pricePositions(ctx context.Context, obs *policies.Observation) {
	mints := []string{policies.WrappedSOL}
	seen := map[string]bool{policies.WrappedSOL: true}
	for _, pos := range obs.Positions {
		if pos.State.Err != nil {
			continue
		}
		for _, m := range []string{pos.State.Pool.Mint0.String(), pos.State.Pool.Mint1.String()} {
			if !seen[m] {
				seen[m] = true
				mints = append(mints, m)
			}
		}
	}
	p.priceMints(ctx, obs, mints)
}

// priceMints prices mints that obs has not priced or found unpriceable yet.
func (p *pricer) priceMints(ctx context.Context, obs *policies.Observation, mints []string) {
	if _, ok := obs.Tokens[policies.WrappedSOL]; !ok {
		if obs.Tokens == nil {
			obs.Tokens = map[string]policies.Token{}
		}
		obs.Tokens[policies.WrappedSOL] = policies.Token{Symbol: "SOL", Decimals: 9} // the native mint's, fixed
	}
	// Pages of one walk share their tokens: a mint an earlier page priced,
	// or found unpriceable, is not asked for again.
	mints = slices.DeleteFunc(mints, func(m string) bool {
		_, unpriced := obs.Unpriced[m]
		return unpriced || obs.Tokens[m].PriceUSD > 0
	})
	if len(mints) == 0 {
		return
	}
	p.applyPrices(obs, mints, p.book.Prices(ctx, mints, p.now()))
}

// applyPrices sets the prices of the needed mints that res has and whose
// decimals obs knows, and records every other needed mint as unpriced.
func (p *pricer) applyPrices(obs *policies.Observation, needed []string, res prices.Result) {
	for _, mint := range needed {
		t, described := obs.Tokens[mint]
		if usd, ok := res.USD[mint]; ok && described {
			t.PriceUSD = usd
			obs.Tokens[mint] = t
			p.unpriced.clear(mint)
			continue
		}
		err := res.Unknown[mint]
		if err == nil {
			err = errNoDecimals
		}
		p.unknownPrice(obs, mint, err)
	}
}

// errNoDecimals reports a priced mint whose decimals neither the config nor
// the chain gave: a price per whole token cannot be applied to its units.
var errNoDecimals = fmt.Errorf("%w (neither tokens: in the config nor its mint account says)", prices.ErrNoDecimals)

// unknownPrice records that mint has no usable price, and why.
func (p *pricer) unknownPrice(obs *policies.Observation, mint string, err error) {
	if err == nil {
		err = prices.ErrNoSource
	}
	if obs.Unpriced == nil {
		obs.Unpriced = map[string]string{}
	}
	obs.Unpriced[mint] = err.Error()
	reason := prices.Reason(err)
	p.unknown.WithLabelValues(reason).Inc()
	if p.unpriced.changed(mint, reason) {
		p.logger.Warn("No usable price; facts that need it are unknown", "mint", mint, "reason", reason, "err", err)
	}
}

// rewardValueMints lists, once each, the principal and reward mints of the
// vaults with a reward schedule that keep selects.
func rewardValueMints(vaults []market.Vault, keep func(market.RewardSchedule) bool) []string {
	var out []string
	seen := map[string]bool{}
	add := func(m string) {
		if m != "" && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	for _, v := range vaults {
		var kept []market.RewardSchedule
		for _, s := range v.VaultRewardsSchedule {
			if keep(s) {
				kept = append(kept, s)
			}
		}
		if len(kept) == 0 {
			continue
		}
		add(v.PrincipalMint)
		for _, s := range kept {
			add(s.RewardMint)
		}
	}
	return out
}

// pricer prices the mints a run values things in, and remembers what it
// could not price so a lasting problem is logged once.
type pricer struct {
	book     *prices.Book
	unpriced unpricedLog
	unknown  *prometheus.CounterVec // reason
	logger   *slog.Logger
	now      func() time.Time
}

// unpricedLog remembers, per mint, why its price was last unknown, so a
// lasting problem is logged once, not every run.
type unpricedLog struct {
	mu  sync.Mutex
	why map[string]string
}

// changed records reason for mint and reports whether it differs from the last one.
func (u *unpricedLog) changed(mint, reason string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.why == nil {
		u.why = map[string]string{}
	}
	if u.why[mint] == reason {
		return false
	}
	u.why[mint] = reason
	return true
}

// clear forgets mint's reason once it is priced again.
func (u *unpricedLog) clear(mint string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.why, mint)
}
