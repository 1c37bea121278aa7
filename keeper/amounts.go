package keeper

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/tokens"
	"github.com/keeper-project/keeper/policies"
)

// AmountsError lists the amounts written with a unit that cannot be spent
// as written in a mint their policy names: another token's symbol, more
// decimals than the mint has, a mint neither the config nor the chain
// describes.
type AmountsError struct{ Problems []string }

func (e *AmountsError) Error() string {
	msg := fmt.Sprintf("%d amounts cannot be spent as written:", len(e.Problems))
	for _, p := range e.Problems {
		msg += "\n  " + p
	}
	return msg
}

// checkAmounts resolves every amount of ps written with a unit in each mint
// its policy names, with the mints' decimals and symbols from the config's
// tokens and then the chain (read through book, which may be nil). Amounts
// whose mints only targets tell are resolved per target when a run decides.
// Unless strict, a mint nothing describes is passed over (its read may have
// failed for now); strict reports it.
func checkAmounts(ctx context.Context, ps []*policies.Policy, cfgTokens map[string]config.Token, book *tokens.Book, strict bool) error {
	type use struct {
		policy string
		policies.AmountUse
	}
	var uses []use
	var mints []solana.PublicKey
	for _, p := range ps {
		for _, u := range p.AmountsWithUnits() {
			uses = append(uses, use{p.Name, u})
			for _, m := range u.Mints {
				if pk, err := solana.PublicKeyFromBase58(m); err == nil {
					mints = append(mints, pk)
				}
			}
		}
	}
	if len(uses) == 0 {
		return nil
	}
	known, _ := describeMints(ctx, book, mints) // a mint the chain cannot describe is reported below
	for m, t := range cfgTokens {
		known[m] = policies.Token{Symbol: t.Symbol, Decimals: t.Decimals}
	}
	var bad AmountsError
	for _, u := range uses {
		for _, m := range u.Mints {
			if _, described := known[m]; !described && !strict {
				continue
			}
			if _, err := u.Amount.Units(m, known); err != nil {
				bad.Problems = append(bad.Problems, fmt.Sprintf("policy %s: %s %v", u.policy, u.Path, err))
			}
		}
	}
	if len(bad.Problems) > 0 {
		return &bad
	}
	return nil
}

// CheckAmountsOnline is `keeper check --online`'s check of the amounts
// written with a unit: it reads the mints the policies name from the
// config's RPC.
func CheckAmountsOnline(ctx context.Context, cfg *config.Config, ps []*policies.Policy) error {
	c, err := chain.New(chainOptions(cfg, NewMetrics(nil), slog.New(slog.DiscardHandler)))
	if err != nil {
		return fmt.Errorf("chain client: %w", err)
	}
	return checkAmounts(ctx, ps, cfg.Tokens, newTokenBook(c), true)
}
