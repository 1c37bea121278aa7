package keeper

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/keeper/prices"
	"github.com/keeper-project/keeper/policies"
	"github.com/keeper-project/keeper/signer"
)

// OnlineError lists what `keeper check --online` found wrong with the
// services and the chain.
type OnlineError struct{ Problems []string }

func (e *OnlineError) Error() string {
	return fmt.Sprintf("%d online checks failed:\n  %s", len(e.Problems), strings.Join(e.Problems, "\n  "))
}

// CheckOnline is `keeper check --online` beyond the amounts: the RPC node
// answers and the wallet holds at least signer.min_lamports, the block
// engine answers when a policy lands bundles, the market answers, and every
// mint and program the config and the policies name exists on chain (a
// mint as a token mint, a program as an executable account), a
// PostgreSQL journal answers and commits durably, and a PKCS#11 token
// answers and holds the wallet's key (nothing is signed).
func CheckOnline(ctx context.Context, cfg *config.Config, ps []*policies.Policy) error {
	var bad OnlineError
	fail := func(format string, args ...any) { bad.Problems = append(bad.Problems, fmt.Sprintf(format, args...)) }
	co := chainOptions(cfg, NewMetrics(nil), slog.New(slog.DiscardHandler))
	co.TipAccounts = nil // asked of the engine, to check chain.tip.accounts against
	c, err := chain.New(co)
	if err != nil {
		return fmt.Errorf("chain client: %w", err)
	}
	defer c.Close()
	wallet, err := WalletOf(cfg)
	if err != nil {
		return err
	}
	if cfg.Signer.PKCS11 != nil {
		if _, err := TokenWallet(ctx, cfg); err != nil {
			fail("signer.pkcs11: %v", err)
		}
	}
	if lamports, err := c.Balance(ctx, wallet); err != nil {
		fail("chain.rpc_url (%s) does not answer: %v", cfg.Chain.RPCURL, err)
	} else if min := cfg.Signer.MinLamports; lamports < min {
		fail("the wallet %s holds %s, under signer.min_lamports %s: fees, rent and tips need SOL",
			wallet, policies.FormatSOL(lamports), policies.FormatSOL(min))
	}
	if usesBundles(ps) || cfg.Chain.JitoURL != "" && mayBundle(ps) {
		if engine, err := c.TipAccounts(ctx); err != nil {
			fail("chain.jito_url (%s) does not answer, and a policy lands bundles (submit.mode bundle, or auto under congestion): %v", cfg.Chain.JitoURL, err)
		} else {
			checkPinnedTips(cfg.Chain.Tip.Accounts, engine, fail)
		}
	}
	if err := pingMarket(ctx, cfg, wallet.String()); err != nil {
		fail("market.base_url (%s) does not answer: %v", cfg.Market.BaseURL, err)
	}
	if cfg.Journal.DSN.Shared() {
		if _, err := journal.Probe(ctx, cfg.JournalDSN()); err != nil {
			fail("journal.dsn (%s) cannot serve as the shared journal: %v", cfg.Journal.DSN, err)
		}
	}
	checkNamedAccounts(ctx, c, cfg, ps, fail)
	checkTriggerAccounts(ctx, c, cfg, ps, fail)
	if len(bad.Problems) > 0 {
		return &bad
	}
	return nil
}

// TokenWallet opens the token signer.pkcs11 names, reads its key's public
// key and closes it; it signs nothing. With signer.pubkey set, a different
// key is an error that also returns the token's key, for `keeper pubkey`
// to print during a rotation.
func TokenWallet(ctx context.Context, c *config.Config) (solana.PublicKey, error) {
	if c.Signer.PKCS11 == nil {
		return solana.PublicKey{}, errors.New("keeper: signer.pkcs11 is not configured")
	}
	s, err := signer.LoadToken(ctx, tokenSource(c.Signer))
	if err != nil {
		return solana.PublicKey{}, fmt.Errorf("keeper: %w", err)
	}
	pk := s.PublicKey()
	if err := s.Close(); err != nil {
		return pk, fmt.Errorf("keeper: close the token: %w", err)
	}
	if want := c.Signer.PublicKey; want != "" && pk.String() != want {
		return pk, fmt.Errorf("keeper: signer.pubkey %s is not the public key of the token's key (%s)", want, pk)
	}
	return pk, nil
}

// checkPinnedTips fails each of chain.tip.accounts that is not one of the
// engine's tip accounts: a tip paid there would not count for a bundle.
func checkPinnedTips(pinned []string, engine []solana.PublicKey, fail func(string, ...any)) {
	for i, a := range pinned {
		if !slices.ContainsFunc(engine, func(k solana.PublicKey) bool { return k.String() == a }) {
			fail("chain.tip.accounts[%d] (%s) is not one of the block engine's tip accounts %v: a bundle tipping it would not count", i, a, engine)
		}
	}
}

// usesBundles reports whether an enabled policy submits by Jito bundle.
func usesBundles(ps []*policies.Policy) bool { return slices.ContainsFunc(ps, landsBundles) }

// mayBundle reports whether an enabled policy that writes submits in mode
// auto, which lands an answer it cannot price as a Jito bundle when its
// accounts are contested.
func mayBundle(ps []*policies.Policy) bool {
	return slices.ContainsFunc(ps, func(p *policies.Policy) bool {
		return p.Enabled && p.Kind.Writes() && p.Submit.Mode == policies.ModeAuto
	})
}

// landsBundles reports whether p is enabled and lands its actions as Jito
// bundles.
func landsBundles(p *policies.Policy) bool {
	return p.Enabled && journal.Mode(p.Submit.Mode) == journal.ModeBundle
}

// pingMarket asks the market for one page of one vault.
func pingMarket(ctx context.Context, cfg *config.Config, wallet string) error {
	m, err := api.New(marketOptions(cfg, wallet, "check", NewMetrics(nil), slog.New(slog.DiscardHandler)))
	if err != nil {
		return err
	}
	one := 1
	_, err = m.Vaults(ctx, market.VaultsQuery{Page: new(0), PageSize: &one})
	return err
}

// checkNamedAccounts reads every mint and program the config and the policies
// name, in one getMultipleAccounts, and reports the missing or wrong ones.
func checkNamedAccounts(ctx context.Context, c *chain.Client, cfg *config.Config, ps []*policies.Policy, fail func(string, ...any)) {
	type want struct {
		what    string
		program bool
	}
	named := map[string]want{}
	for key, id := range map[string]string{"market.program_id": cfg.Market.ProgramID, "market.earn_program_id": cfg.Market.EarnProgramID,
		"chain.dex_a_program": cfg.Chain.DexAProgram, "chain.dex_b_program": cfg.Chain.DexBProgram} {
		if id != "" {
			named[id] = want{key, true}
		}
	}
	for _, p := range ps {
		for _, m := range slices.Concat(p.Select.PrincipalMints, p.Select.CollateralMints, mapKeys(p.Limits.DailyCaps)) {
			named[m] = want{"policy " + p.Name + " mint", false}
		}
	}
	var keys []solana.PublicKey
	for k := range named {
		if pk, err := solana.PublicKeyFromBase58(k); err == nil {
			keys = append(keys, pk)
		}
	}
	slices.SortFunc(keys, func(a, b solana.PublicKey) int { return strings.Compare(a.String(), b.String()) })
	accs, err := c.Accounts(ctx, keys)
	if err != nil {
		fail("cannot read the named mints and programs: %v", errors.Unwrap(err))
		return
	}
	for i, k := range keys {
		w, a := named[k.String()], accs[i]
		switch {
		case a == nil:
			fail("%s %s does not exist on chain", w.what, k)
		case w.program && !a.Executable:
			fail("%s %s is not a program (not executable)", w.what, k)
		case !w.program && a.Owner != solana.TokenProgramID && a.Owner != solana.Token2022ProgramID:
			fail("%s %s is not a token mint (owner %s)", w.what, k, a.Owner)
		}
	}
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// checkTriggerAccounts reads the accounts the enabled policies' triggers
// watch, in one getMultipleAccounts, and reports those that do not exist,
// price accounts that are not Pyth price updates and pools that are not
// CLMM pools: a trigger on them would never fire.
func checkTriggerAccounts(ctx context.Context, c *chain.Client, cfg *config.Config, ps []*policies.Policy, fail func(string, ...any)) {
	type watched struct {
		what string
		ok   func(data []byte) bool
	}
	var keys []solana.PublicKey
	var ws []watched
	add := func(k solana.PublicKey, what string, ok func([]byte) bool) {
		keys, ws = append(keys, k), append(ws, watched{what, ok})
	}
	for _, p := range ps {
		if !p.Enabled {
			continue
		}
		for _, pr := range p.Triggers.Price {
			if acct, err := priceAccount(cfg.Prices, pr.Mint); err == nil {
				add(acct, fmt.Sprintf("policy %s: the Pyth price account %s of %s", p.Name, acct, pr.Mint), func(d []byte) bool {
					_, err := prices.DecodeUpdate(d)
					return err == nil
				})
			}
		}
		for _, a := range p.Triggers.Account {
			what, addr := "account", a.Address
			var ok func([]byte) bool // existing is enough
			if a.Pool != "" {
				what, addr = "pool", a.Pool
				ok = func(d []byte) bool {
					_, ok := poolTick(d)
					return ok
				}
			}
			k, err := solana.PublicKeyFromBase58(addr)
			if err != nil { // the parser refuses it: a policy built by other means
				fail("policy %s: the %s %s: %v", p.Name, what, addr, err)
				continue
			}
			add(k, fmt.Sprintf("policy %s: the %s %s", p.Name, what, addr), ok)
		}
	}
	if len(keys) == 0 {
		return
	}
	accs, err := c.Accounts(ctx, keys)
	if err != nil {
		fail("cannot read the accounts the triggers watch: %v", errors.Unwrap(err))
		return
	}
	for i, w := range ws {
		switch a := accs[i]; {
		case a == nil:
			fail("%s does not exist on chain: its trigger would never fire", w.what)
		case w.ok != nil && !w.ok(a.Data):
			fail("%s is not what its trigger reads (owner %s, %d bytes): it would never fire", w.what, a.Owner, len(a.Data))
		}
	}
}
