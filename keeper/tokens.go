package keeper

import (
	"context"
	"maps"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/tokens"
	"github.com/keeper-project/keeper/policies"
)

// accountReader reads accounts with their owners: the mints and metadata
// the token book learns from, the oracle accounts prices come from.
// *chain.Client implements it.
type accountReader interface {
	Accounts(ctx context.Context, keys []solana.PublicKey) ([]*chain.Account, error)
}

// newTokenBook returns a book of mints read through ar.
func newTokenBook(ar accountReader) *tokens.Book {
	return tokens.NewBook(readAs(ar, func(a *chain.Account) *tokens.Account {
		return &tokens.Account{Owner: a.Owner, Data: a.Data}
	}))
}

// readAs adapts ar's account reads to a package's own account type; a
// missing account stays nil.
func readAs[T any](ar accountReader, conv func(*chain.Account) *T) func(context.Context, []solana.PublicKey) ([]*T, error) {
	return func(ctx context.Context, keys []solana.PublicKey) ([]*T, error) {
		accts, err := ar.Accounts(ctx, keys)
		if err != nil {
			return nil, err
		}
		out := make([]*T, len(accts))
		for i, a := range accts {
			if a != nil {
				out[i] = conv(a)
			}
		}
		return out, nil
	}
}

// learnTokens completes obs.Tokens with what the chain says of the mints obs names and the config
// does not describe (the config's `tokens:` entries override the chain). A mint the chain cannot
// tell about keeps its amounts in base units; that is logged, never an error of the run.
func (o *observer) learnTokens(ctx context.Context, obs *policies.Observation) {
	if o.tokenBook == nil {
		return
	}
	var mints []solana.PublicKey
	for _, m := range observedMints(obs) {
		if _, ok := obs.Tokens[m]; ok {
			continue
		}
		if pk, err := solana.PublicKeyFromBase58(m); err == nil {
			mints = append(mints, pk)
		}
	}
	if len(mints) == 0 {
		return
	}
	learned, err := describeMints(ctx, o.tokenBook, mints)
	if err != nil {
		o.logger.Debug("Some mints are not described by the chain; their amounts stay in base units", "err", err)
	}
	if obs.Tokens == nil {
		obs.Tokens = map[string]policies.Token{}
	}
	maps.Copy(obs.Tokens, learned)
}

// describeMints learns mints through book (nil: none) and returns what the
// chain says of each it could describe, with the error of what it could not.
func describeMints(ctx context.Context, book *tokens.Book, mints []solana.PublicKey) (map[string]policies.Token, error) {
	out := map[string]policies.Token{}
	if book == nil || len(mints) == 0 {
		return out, nil
	}
	err := book.Learn(ctx, mints)
	for _, m := range mints {
		if t, ok := book.Lookup(m); ok {
			out[m.String()] = policies.Token{Symbol: t.Symbol, Decimals: t.Decimals}
		}
	}
	return out, err
}

// observedMints lists the mints whose amounts an observation's messages may show: loans' principal
// and collateral mints, CLMM pools' mints, vaults' principal and reward mints, quoted principal
// mints and loops' collateral mints.
func observedMints(obs *policies.Observation) []string {
	seen := map[string]bool{}
	var out []string
	add := func(m string) {
		if m != "" && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	for _, l := range obs.Loans {
		for _, c := range l.Collateral {
			add(c.AssetMint)
		}
		for _, lg := range l.Ledgers {
			add(lg.PrincipalMint)
		}
	}
	for _, p := range obs.Positions {
		if p.State.Err == nil {
			add(p.State.Pool.Mint0.String())
			add(p.State.Pool.Mint1.String())
		}
	}
	for _, v := range obs.Vaults {
		add(v.PrincipalMint)
		for _, r := range v.VaultRewardsSchedule {
			add(r.RewardMint)
		}
	}
	for _, q := range obs.Quotes {
		add(q.PrincipalMint)
	}
	for _, l := range obs.Loops {
		add(l.CollateralMint)
	}
	return out
}

// describe returns what is known of mints: the config's tokens, completed
// with what the chain says of the others. A mint neither describes is left
// out, and its amounts show in base units.
func (o *observer) describe(ctx context.Context, mints []string) map[string]policies.Token {
	out := map[string]policies.Token{}
	var ask []solana.PublicKey
	for _, m := range mints {
		if t, ok := o.configTokens[m]; ok {
			out[m] = t
		} else if pk, err := solana.PublicKeyFromBase58(m); err == nil {
			ask = append(ask, pk)
		}
	}
	learned, err := describeMints(ctx, o.tokenBook, ask)
	if err != nil {
		o.logger.Debug("Some mints are not described by the chain; their amounts stay in base units", "err", err)
	}
	maps.Copy(out, learned)
	return out
}
