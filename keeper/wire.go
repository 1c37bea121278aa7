package keeper

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/chain/tipfloor"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/keeper/notify"
	"github.com/keeper-project/keeper/signer"
)

// deps are the services keeper works through.
type deps struct {
	market    Market
	signer    Signer
	submitter Submitter
	journal   Journal
	swapper   action.Swapper // nil: from the config's swap section
}

// wire builds every dependency left nil, from the config, and returns how
// to close what it opened. The signer comes first: the market client needs
// the wallet.
func (d *deps) wire(e env, version string, readOnly bool) (closers []func() error, err error) {
	c := e.cfg
	if d.signer == nil {
		s, closeSigner, err := newSigner(c, readOnly)
		if err != nil {
			return closers, err
		}
		d.signer = s
		closers = append(closers, closeSigner)
	}
	if d.market == nil {
		m, err := api.New(marketOptions(c, d.signer.PublicKey().String(), version, e.metrics, e.logger))
		if err != nil {
			return closers, fmt.Errorf("keeper: market client: %w", err)
		}
		d.market = m
	}
	if d.journal == nil {
		j, err := journal.Open(context.Background(), c.JournalDSN(), journal.Options{Now: e.now, Logger: e.logger,
			Committed: journalCommitted(e.metrics)})
		if err != nil {
			return closers, fmt.Errorf("keeper: %w", err)
		}
		d.journal = j
		closers = append(closers, j.Close) // an injected journal is its owner's to close
	}
	if d.submitter == nil {
		cl, err := chain.New(chainOptions(c, e.metrics, e.logger))
		if err != nil {
			return closers, fmt.Errorf("keeper: chain client: %w", err)
		}
		d.submitter = cl
		closers = append(closers, cl.Close)
	}
	return closers, nil
}

// newExecutor builds the action path over d; o drops its reads when an
// action may have changed its target, and writes amounts for people;
// unsettled hears of an outcome the journal did not take; verify reads a
// landed action's target again.
func newExecutor(e env, d deps, n *notify.Dispatcher, o *observer, unsettled func(), verify func(context.Context, action.Plan) string) *action.Executor {
	t := e.cfg.Chain.Tip
	links, _ := e.cfg.Explorer.Links(e.cfg.Chain.RPCURL) // checked when the config loaded
	collateral, err := collateralConfig(e.cfg, d.swapper, d.signer.PublicKey(), d.submitter.MultipleAccounts)
	if err != nil {
		e.logger.Error("Repays from collateral cannot build", "err", err) // swap.programs were checked when the config loaded
	}
	return action.New(action.Config{
		Builder: d.market, Signer: d.signer, Submitter: d.submitter, Journal: d.journal, Notifier: n,
		Metrics: action.Metrics{Actions: e.metrics.Actions, GuardRefusals: e.metrics.GuardRefusals,
			IdempotencyConflicts: e.metrics.IdempotencyConflicts, Paused: e.metrics.Paused, PriceAboveCap: e.metrics.PriceAboveCap},
		Logger: e.logger, Now: e.now, Commitment: rpc.CommitmentType(e.cfg.Chain.Commitment), Poll: e.cfg.Chain.Poll,
		Tip:        action.TipConfig{Floor: t.FloorLamports, Max: t.MaxLamports, FallbackRPC: t.Fallback == "rpc"},
		Priority:   priorityConfig(e.cfg, d.submitter, e.metrics),
		KillSwitch: e.cfg.KillSwitch,
		Changed:    o.reads.forget,
		Unsettled:  unsettled,
		Verify:     verify,
		Links:      links,
		Amount:     o.amountText,
		Collateral: collateral,
		Proposals:  proposalConfig(e, d),
	})
}

// priorityConfig is the action path's pricing: the fee market read through
// sub and the tip floor of chain.tip_floor_url or the one beside
// chain.jito_url (neither with chain.priority.off), and the caps. The tip
// floor's requests count in m's RPC metrics as method tip_floor.
func priorityConfig(c *config.Config, sub Submitter, m *Metrics) action.PriorityConfig {
	p := c.Chain.Priority
	out := action.PriorityConfig{MaxUnitPrice: cmp.Or(c.Signer.MaxComputeUnitPrice, signer.DefaultMaxComputeUnitPrice), UnitMargin: p.UnitMarginPercent,
		RaisePercent: p.RaisePercent, SetupAnywhere: c.Market.SetupPlacement == "anywhere"}
	if !p.Off {
		out.Fees = sub
	}
	if u := cmp.Or(c.Chain.TipFloorURL.Reveal(), tipfloor.URLFor(c.Chain.JitoURL.Reveal())); u != "" && !p.Off {
		out.TipFloor = &tipfloor.Reader{URL: u, Observe: observeRPC(m)}
	}
	return out
}

// newSigner returns the signer of the config and how to release it: for a
// read-only command with signer.pubkey, a read-only signer (no key is
// loaded, nothing to release); else the operator's key, armed with the
// guard, which must match signer.pubkey when that is set (a key in a token
// holds its session until released).
func newSigner(c *config.Config, readOnly bool) (Signer, func() error, error) {
	s := c.Signer
	if s.PublicKey != "" && (readOnly || !s.HasKey()) {
		if !readOnly {
			return nil, nil, errors.New("keeper: signer: only signer.pubkey is configured; keeper run needs a key to sign " +
				"(signer.keypair, secret_env, secret_file or pkcs11)")
		}
		pk, err := solana.PublicKeyFromBase58(s.PublicKey)
		if err != nil {
			return nil, nil, fmt.Errorf("keeper: signer.pubkey: %w", err)
		}
		return signer.NewReadOnly(pk), func() error { return nil }, nil
	}
	armed, err := loadSigner(c)
	if err != nil {
		return nil, nil, err
	}
	return armed, armed.Close, nil
}

// loadSigner loads the operator's key and arms it with the guard; the key's
// public half must be signer.pubkey when that is set.
func loadSigner(c *config.Config) (*signer.Signer, error) {
	s, err := loadKey(c)
	if err != nil {
		return nil, fmt.Errorf("keeper: %w", err)
	}
	armed, err := s.WithGuard(GuardConfig(c))
	if err != nil {
		return nil, errors.Join(fmt.Errorf("keeper: %w", err), s.Close())
	}
	if want := c.Signer.PublicKey; want != "" && armed.PublicKey().String() != want {
		return nil, errors.Join(fmt.Errorf("keeper: signer.pubkey %s is not the public key of the configured key (%s)", want, armed.PublicKey()),
			s.Close())
	}
	return armed, nil
}

// loadKey loads the configured key, without a guard: from a PKCS#11 token
// when signer.pkcs11 is set (the token reads out its public key and makes
// every signature), else from the key file or environment variable.
func loadKey(c *config.Config) (*signer.Signer, error) {
	if c.Signer.PKCS11 != nil {
		return signer.LoadToken(context.Background(), tokenSource(c.Signer)) // each call to the token has its deadline
	}
	src := signer.KeySource{Path: c.Signer.Keypair, Env: c.Signer.SecretEnv, AllowInsecurePermissions: c.Signer.AllowInsecurePermissions}
	if c.Signer.SecretFile != "" {
		src.Path = c.Signer.SecretFile
	}
	return signer.Load(src)
}

// tokenSource is the signer's form of signer.pkcs11.
func tokenSource(s config.Signer) signer.TokenSource {
	p := s.PKCS11
	return signer.TokenSource{Module: p.Module, TokenLabel: p.TokenLabel, Slot: p.Slot, KeyLabel: p.KeyLabel, KeyID: p.KeyIDBytes(),
		PIN: p.PIN.Reveal(), PINFile: p.PINFile, AllowInsecurePermissions: s.AllowInsecurePermissions, Timeout: p.Timeout}
}

// CheckSigner loads the operator's key from the config exactly as a run does at start (file or
// environment, permissions, length, the public half matching the secret one, the guard's
// settings) and drops it, so that `keeper check` refuses everything `keeper run` would refuse. The
// key never leaves the signer package; errors name the source, never its contents. A PKCS#11 token
// is checked without opening it (module, PIN, the build); `check --online` opens it (TokenWallet).
func CheckSigner(c *config.Config) error {
	s := c.Signer
	if !s.HasKey() {
		_, _, err := newSigner(c, true) // no key: only signer.pubkey to check
		return err
	}
	if s.PKCS11 != nil { // the token itself: check --online (TokenWallet)
		if err := signer.CheckTokenSource(tokenSource(s)); err != nil {
			return fmt.Errorf("keeper: %w", err)
		}
		return nil
	}
	_, err := loadSigner(c)
	return err
}

// WalletOf returns the wallet's public key as the config gives it:
// signer.pubkey, else the public half of the configured key (loaded and
// dropped).
func WalletOf(c *config.Config) (solana.PublicKey, error) {
	s, closeSigner, err := newSigner(c, c.Signer.PublicKey != "")
	if err != nil {
		return solana.PublicKey{}, err
	}
	defer closeSigner() // a token opened to read the public key
	return s.PublicKey(), nil
}

// GuardConfig derives the transaction guard's settings from the config:
// the market and dex programs for every kind, the earn program for
// withdrawal claims, and the operator's extra programs.
func GuardConfig(c *config.Config) signer.GuardConfig {
	g := signer.GuardConfig{
		MarketProgram:       c.Market.ProgramID,
		DexAProgram:         c.Chain.DexAProgram,
		DexBProgram:         c.Chain.DexBProgram,
		AllowMarketFeePayer: c.Signer.AllowMarketFeePayer,
		MaxComputeUnitPrice: c.Signer.MaxComputeUnitPrice,
		ExtraPrograms:       map[signer.Kind][]string{},
	}
	if c.Market.EarnProgramID != "" {
		g.ExtraPrograms[signer.KindClaimWithdrawals] = []string{c.Market.EarnProgramID}
	}
	g.ExtraPrograms[signer.KindRepayCollateral] = append([]string{}, c.Swap.Programs...) // the aggregator: this kind only
	for kind, ids := range c.Signer.ExtraPrograms {
		g.ExtraPrograms[signer.Kind(kind)] = append(g.ExtraPrograms[signer.Kind(kind)], ids...)
	}
	return g
}

// marketOptions maps the config onto the market client.
func marketOptions(c *config.Config, wallet, version string, m *Metrics, logger *slog.Logger) api.Options {
	mk := c.Market
	return api.Options{
		BaseURL:      mk.BaseURL.Reveal(),
		Timeout:      mk.Timeout,
		Version:      version,
		AuthHeader:   mk.Auth.Header,
		AuthValue:    mk.Auth.Value.Reveal(),
		WalletHeader: mk.WalletHeader,
		PayerHeader:  mk.PayerHeader,
		Wallet:       wallet,
		Paths: api.Paths{DexA: mk.Paths.DexA, DexB: mk.Paths.DexB, Gateway: mk.Paths.Gateway, Provider: mk.Paths.Provider,
			EarnPosition: mk.Paths.EarnPosition, EarnWithdrawQueue: mk.Paths.EarnWithdrawalQueue, EarnWithdrawRequest: mk.Paths.EarnWithdrawRequest},
		QueueFields: queueFields(mk.Fields.WithdrawalQueue),
		RateLimit:   api.RateLimit{PerSecond: mk.RateLimit.RPS, Burst: mk.RateLimit.Burst},
		Retry:       api.RetryPolicy{MaxAttempts: mk.Retry.Attempts, BaseBackoff: mk.Retry.Base, MaxBackoff: mk.Retry.Max},
		Observe: func(endpoint string, status int, d time.Duration, err error) {
			m.MarketRequests.WithLabelValues(endpoint, strconv.Itoa(status)).Observe(d.Seconds())
			if err != nil {
				m.MarketErrors.WithLabelValues(endpoint).Inc()
			}
		},
		Logger: logger, // the client adds component=market

		PageSize:      mk.PageSize,
		PagesInFlight: mk.PagesInFlight,
	}
}

// queueFields maps the config's withdrawal-queue member names onto the
// market client's.
func queueFields(f config.WithdrawalQueueFields) market.WithdrawalQueueFields {
	return market.WithdrawalQueueFields{Requests: f.Requests, RequestID: f.RequestID, Wallet: f.Wallet, Requested: f.Requested,
		Filled: f.Filled, Claimed: f.Claimed, Cancelled: f.Cancelled, CreatedTime: f.CreatedTime}
}

// chainOptions maps the config onto the chain client.
func chainOptions(c *config.Config, m *Metrics, logger *slog.Logger) chain.Options {
	ch := c.Chain
	urls := []string{ch.RPCURL.Reveal()}
	for _, u := range ch.RPCURLs {
		urls = append(urls, u.Reveal())
	}
	return chain.Options{
		RPCURLs:             urls,
		SendURL:             ch.SendURL.Reveal(),
		SimulateBundleURL:   ch.SimulateBundleURL.Reveal(),
		Commitment:          rpc.CommitmentType(ch.Commitment),
		RateLimit:           ch.RateLimit.RPS,
		RateBurst:           ch.RateLimit.Burst,
		RequestTimeout:      ch.Timeout,
		Retry:               chain.Retry{Rounds: ch.Retry.Attempts, Base: ch.Retry.Base, Max: ch.Retry.Max},
		RebroadcastInterval: ch.Rebroadcast,
		PollInterval:        ch.Poll,
		WSURL:               ch.WSURL.Reveal(),
		PollOnly:            ch.Confirm == "poll",
		JitoURL:             ch.JitoURL.Reveal(),
		JitoAuth:            ch.JitoAuth.Value.Reveal(),
		JitoRateLimit:       ch.JitoRPS,
		TipAccounts:         tipAccounts(ch.Tip.Accounts),
		KnownTipAccounts:    chain.PublishedTipAccounts(ch.JitoURL.Reveal()),
		Logger:              logger, // the client adds component=chain
		Observe:             observeRPC(m),
	}
}

// observeRPC returns the hook that counts a Solana RPC or Jito request
// (by method) in m's RPC metrics.
func observeRPC(m *Metrics) func(method string, d time.Duration, err error) {
	return func(method string, d time.Duration, err error) {
		m.RPCRequests.WithLabelValues(method).Observe(d.Seconds())
		if err != nil {
			m.RPCErrors.WithLabelValues(method).Inc()
		}
	}
}

// newDispatcher builds the notification dispatcher from the config's
// notifiers; postDryRun lets dry runs post (Options.NotifyDryRun).
func newDispatcher(e env, postDryRun bool) *notify.Dispatcher {
	var senders []notify.Sender
	window := time.Duration(0) // the smallest dedup window of the notifiers applies to all
	for _, n := range e.cfg.Notifiers {
		s, err := newSender(n)
		if err != nil {
			e.logger.Error("Notifier not usable", "notifier", n.Name, "err", err)
			continue
		}
		senders = append(senders, s)
		if window == 0 || n.DedupWindow < window {
			window = n.DedupWindow
		}
	}
	links, _ := e.cfg.Explorer.Links(e.cfg.Chain.RPCURL) // checked when the config loaded
	return notify.New(notify.Options{Senders: senders, DedupWindow: window, Now: e.now, PostDryRun: postDryRun,
		AddressLink: func(target string) string {
			if _, err := solana.PublicKeyFromBase58(target); err != nil {
				return ""
			}
			return links.Address(target)
		},
		Logger: e.logger.With("component", "notify"),
		Delivered: func(name string, err error) {
			outcome := "ok"
			if err != nil {
				outcome = "error"
			}
			e.metrics.Notifications.WithLabelValues(name, outcome).Inc()
		}})
}

// newSender builds the notifier n describes.
func newSender(n config.Notifier) (notify.Sender, error) {
	if n.Type == string(notify.EmailFormat) {
		m, err := notify.NewEmail(n.Name, notify.EmailOptions{URL: n.URL.Reveal(), From: n.From, To: n.To,
			Username: n.Username, Password: n.Password.Reveal(), Timeout: n.Timeout})
		if err != nil {
			return nil, err
		}
		return m.WithRetries(n.Retries), nil
	}
	w, err := notify.NewWebhook(n.Name, n.URL.Reveal(), notify.Format(n.Type), nil, n.Timeout)
	if err != nil {
		return nil, err
	}
	return w.WithRetries(n.Retries).WithTelegramChat(n.ChatID).WithRoutingKey(n.RoutingKey.Reveal()).
		WithSigningSecret(n.SigningSecret.Reveal()), nil
}

// tipAccounts decodes chain.tip.accounts, which the config has checked.
func tipAccounts(addrs []string) []solana.PublicKey {
	var out []solana.PublicKey
	for _, a := range addrs {
		if k, err := solana.PublicKeyFromBase58(a); err == nil {
			out = append(out, k)
		}
	}
	return out
}
