package keeper

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/tokens"
	"github.com/keeper-project/keeper/policies"
)

// observer reads what policies decide from: the market's loans, vaults,
// quotes and withdrawal queues, CLMM positions and mints from the chain,
// and prices. The policies of one tick share its reads.
type observer struct {
	market Market
	wallet solana.PublicKey
	now    func() time.Time
	logger *slog.Logger

	reads *readCache // reads shared by the policies of one tick
	dexes []clmm.Dex // dex-a and dex-b, with their programs from config
	// positions reads CLMM positions; it remembers their tick arrays so a
	// later read takes one getMultipleAccounts call.
	positions *clmm.Reader
	// tokenBook learns mints' decimals and symbols from the chain (nil
	// when the submitter cannot read accounts with their owners).
	tokenBook *tokens.Book
	// configTokens is what the config's tokens: says of mints.
	configTokens map[string]policies.Token
	prices       *pricer
	walks        *loanWalks
}

// newObserver builds the observer over keeper's market and chain client.
func newObserver(e env, d deps, wallet solana.PublicKey) (*observer, error) {
	dexes, err := newDexes(e.cfg)
	if err != nil {
		return nil, err
	}
	book, err := newPriceBook(e.cfg.Prices, d.submitter)
	if err != nil {
		return nil, err
	}
	o := &observer{market: d.market, wallet: wallet, now: e.now, logger: e.logger,
		reads: newReadCache(readTTL, e.now), dexes: dexes, positions: clmm.NewReader(d.submitter),
		tokenBook: newTokenBook(d.submitter),
		prices:    &pricer{book: book, unknown: e.metrics.PricesUnknown, logger: e.logger, now: e.now}}
	o.walks = &loanWalks{market: d.market, o: o, gather: gatherWindow, rps: e.cfg.Market.RateLimit.RPS}
	if e.cfg.Market.SharedWalkMaxLoans != nil {
		e.logger.Warn("market.shared_walk_max_loans is deprecated and ignored: the policies of a tick share one walk of the loans whatever their number; remove the key",
			"shared_walk_max_loans", *e.cfg.Market.SharedWalkMaxLoans)
	}
	if len(e.cfg.Tokens) > 0 {
		o.configTokens = make(map[string]policies.Token, len(e.cfg.Tokens))
		for mint, t := range e.cfg.Tokens {
			o.configTokens[mint] = policies.Token{Symbol: t.Symbol, Decimals: t.Decimals}
		}
	}
	return o, nil
}

// readTTL is how long a read serves the policies of one tick. It is no
// longer than the shortest interval between two ticks of a schedule (1 s),
// so the policies of one tick share a read and the next tick reads afresh.
const readTTL = time.Second

// newDexes returns dex-a and dex-b with their program ids from config.
func newDexes(c *config.Config) ([]clmm.Dex, error) {
	var out []clmm.Dex
	for _, d := range []struct{ layout, program string }{{clmm.DexA, c.Chain.DexAProgram}, {clmm.DexB, c.Chain.DexBProgram}} {
		if d.program == "" {
			continue // no policy reads its positions (CheckPrograms)
		}
		pk, err := solana.PublicKeyFromBase58(d.program)
		if err != nil {
			return nil, fmt.Errorf("keeper: %s program: %w", d.layout, err)
		}
		dex, err := clmm.NewDex(d.layout, pk)
		if err != nil {
			return nil, fmt.Errorf("keeper: %w", err)
		}
		out = append(out, dex)
	}
	return out, nil
}

// amountText writes units of mint for people, with the symbol and decimals
// the config or the chain gave ("412.5 USDC"), else in base units.
func (o *observer) amountText(mint string, units uint64) string {
	toks := o.tokens()
	if _, ok := toks[mint]; !ok && o.tokenBook != nil {
		if pk, err := solana.PublicKeyFromBase58(mint); err == nil {
			if t, ok := o.tokenBook.Lookup(pk); ok {
				if toks == nil {
					toks = map[string]policies.Token{}
				}
				toks[mint] = policies.Token{Symbol: t.Symbol, Decimals: t.Decimals}
			}
		}
	}
	return policies.FormatAmount(units, mint, toks)
}
