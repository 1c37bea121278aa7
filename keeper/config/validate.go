package config

import (
	"errors"
	"maps"
	"math"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/mr-tron/base58"
	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/internal/strictyaml"
	"github.com/keeper-project/keeper/keeper/explorer"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/notify"
	"github.com/keeper-project/keeper/keeper/prices"
)

// ActionKinds lists the action kinds whose program allowlists
// signer.extra_programs may extend.
var ActionKinds = []string{"repay", "rebalance", "claim-fees", "claim-withdrawals", "strategy-update", "strategy-withdraw", "tip"}

// validator collects semantic problems, each positioned at the YAML node
// that holds the offending value (or the nearest one when it was omitted).
type validator struct {
	file string
	root *yaml.Node
	dir  string
	errs strictyaml.Errors
	// quiet skips the notifiers' URLs: the command sends nothing.
	quiet bool
	// fromCLI are the keys taken from the Solana CLI's config.
	fromCLI []string
}

func (v *validator) fail(path []any, format string, args ...any) {
	v.errs = append(v.errs, strictyaml.At(v.file, strictyaml.Find(v.root, path...), format, args...))
}

func (v *validator) check(c *Config) {
	v.market(&c.Market)
	v.chain(&c.Chain)
	v.signer(&c.Signer)
	v.misc(c)
	for i := range c.Notifiers {
		if v.quiet {
			c.Notifiers[i].URL, c.Notifiers[i].URLFile = "", "" // named for the policies, never sent to
			continue
		}
		v.notifier(i, &c.Notifiers[i])
	}
}

func (v *validator) market(m *Market) {
	v.url([]any{"market", "base_url"}, "market.base_url", string(m.BaseURL), true)
	if !basePathIsV1(string(m.BaseURL)) {
		v.fail([]any{"market", "base_url"}, "market.base_url must end in /v1 (the API version segment), got %s", RedactURL(string(m.BaseURL)))
	}
	v.positive([]any{"market", "timeout"}, "market.timeout", m.Timeout > 0)
	v.secret([]any{"market", "auth"}, "market.auth", &m.Auth)
	v.header([]any{"market", "wallet_header"}, "market.wallet_header", m.WalletHeader, true)
	v.header([]any{"market", "payer_header"}, "market.payer_header", m.PayerHeader, true)
	v.rate([]any{"market", "rate_limit"}, "market.rate_limit", m.RateLimit)
	v.retry([]any{"market", "retry"}, m.Retry)
	v.pubkey([]any{"market", "program_id"}, "market.program_id", m.ProgramID, true)
	v.pubkey([]any{"market", "earn_program_id"}, "market.earn_program_id", m.EarnProgramID, false)
	p := m.Paths
	paths := []struct{ key, val string }{{"dex_a", p.DexA}, {"dex_b", p.DexB}, {"gateway", p.Gateway}, {"provider", p.Provider},
		{"earn_position", p.EarnPosition}, {"earn_withdrawal_queue", p.EarnWithdrawalQueue}, {"earn_withdraw_request", p.EarnWithdrawRequest}}
	for _, kv := range paths {
		if kv.val == "" || strings.HasPrefix(kv.val, "/") || strings.ContainsAny(kv.val, "?# ") {
			v.fail([]any{"market", "paths", kv.key}, "market.paths.%s must be a relative path without spaces, query or fragment, got %s", kv.key, strictyaml.Excerpt(kv.val))
		}
	}
	v.queueFields(m.Fields.WithdrawalQueue)
}

// queueFields checks the withdrawal queue's member names: each a plain JSON
// member name, the list not the queue's own address, and a request's
// members all different.
func (v *validator) queueFields(f WithdrawalQueueFields) {
	at := func(key string) []any { return []any{"market", "fields", "withdrawal_queue", key} }
	if f.Requests == "address" {
		v.fail(at("requests"), `market.fields.withdrawal_queue.requests must not be "address", the queue's own member`)
	}
	seen := map[string]string{}
	for _, kv := range []struct{ key, val string }{{"requests", f.Requests}, {"request_id", f.RequestID}, {"wallet", f.Wallet},
		{"requested", f.Requested}, {"filled", f.Filled}, {"claimed", f.Claimed}, {"cancelled", f.Cancelled}, {"created_time", f.CreatedTime}} {
		other, dup := seen[kv.val]
		switch {
		case !market.ValidMemberName(kv.val):
			v.fail(at(kv.key), "market.fields.withdrawal_queue.%s must be a JSON member name without dots or spaces, got %s", kv.key, strictyaml.Excerpt(kv.val))
		case dup && kv.key != "requests":
			v.fail(at(kv.key), "market.fields.withdrawal_queue.%s is %s, as %s is: each member of a request needs its own name", kv.key, strictyaml.Excerpt(kv.val), other)
		}
		if kv.key != "requests" {
			seen[kv.val] = kv.key
		}
	}
}

func (v *validator) chain(c *Chain) {
	c.RPCURL = URL(ResolveURL(string(c.RPCURL)))
	v.url([]any{"chain", "rpc_url"}, "chain.rpc_url", string(c.RPCURL), true)
	for i, u := range c.RPCURLs {
		c.RPCURLs[i] = URL(ResolveURL(string(u)))
		v.url([]any{"chain", "rpc_urls", i}, "chain.rpc_urls", string(c.RPCURLs[i]), true)
	}
	v.url([]any{"chain", "send_url"}, "chain.send_url", string(c.SendURL), false)
	v.url([]any{"chain", "simulate_bundle_url"}, "chain.simulate_bundle_url", string(c.SimulateBundleURL), false)
	v.url([]any{"chain", "jito_url"}, "chain.jito_url", string(c.JitoURL), false)
	v.secret([]any{"chain", "jito_auth"}, "chain.jito_auth", &c.JitoAuth)
	if c.Commitment != "confirmed" && c.Commitment != "finalized" {
		v.fail([]any{"chain", "commitment"}, "chain.commitment must be confirmed or finalized (a processed transaction may still be rolled back), got %s", strictyaml.Excerpt(c.Commitment))
	}
	v.positive([]any{"chain", "timeout"}, "chain.timeout", c.Timeout > 0)
	v.positive([]any{"chain", "rebroadcast"}, "chain.rebroadcast", c.Rebroadcast > 0)
	v.positive([]any{"chain", "poll"}, "chain.poll", c.Poll > 0)
	v.positive([]any{"chain", "watch_poll"}, "chain.watch_poll", c.WatchPoll > 0)
	if c.Confirm != "websocket" && c.Confirm != "poll" {
		v.fail([]any{"chain", "confirm"}, "chain.confirm must be websocket or poll, got %s", strictyaml.Excerpt(c.Confirm))
	}
	v.wsURL([]any{"chain", "ws_url"}, "chain.ws_url", string(c.WSURL))
	v.rate([]any{"chain", "rate_limit"}, "chain.rate_limit", c.RateLimit)
	v.retry([]any{"chain", "retry"}, c.Retry)
	if c.Tip.FloorLamports < 1000 {
		v.fail([]any{"chain", "tip", "floor_lamports"}, "chain.tip.floor_lamports must be at least 1000 (the block engine's minimum tip), got %d", c.Tip.FloorLamports)
	}
	if c.Tip.MaxLamports < c.Tip.FloorLamports {
		v.fail([]any{"chain", "tip", "max_lamports"}, "chain.tip.max_lamports (%d) is below floor_lamports (%d)", c.Tip.MaxLamports, c.Tip.FloorLamports)
	}
	if c.Tip.Fallback != "rpc" && c.Tip.Fallback != "refuse" {
		v.fail([]any{"chain", "tip", "fallback"}, "chain.tip.fallback must be rpc or refuse, got %s", strictyaml.Excerpt(c.Tip.Fallback))
	}
	// The dex programs are needed by the policies that act on or read CLMM
	// positions; keeper.CheckPrograms says which lack one.
	v.pubkey([]any{"chain", "dex_a_program"}, "chain.dex_a_program", c.DexAProgram, false)
	v.pubkey([]any{"chain", "dex_b_program"}, "chain.dex_b_program", c.DexBProgram, false)
}

func (v *validator) signer(s *Signer) {
	v.pubkey([]any{"signer", "pubkey"}, "signer.pubkey", s.PublicKey, false)
	if s.PublicKey != "" && !v.written("signer", "keypair") && s.SecretEnv == "" && s.SecretFile == "" && !slices.Contains(v.fromCLI, "signer.keypair") {
		s.Keypair = "" // read-only: the default keypair path is not assumed
	}
	if s.SecretEnv != "" || s.SecretFile != "" {
		if v.written("signer", "keypair") {
			v.fail([]any{"signer", "keypair"}, "signer: set only one of keypair, secret_env and secret_file")
		}
		s.Keypair = "" // the default keypair path yields to an explicit secret
	}
	if s.SecretEnv != "" && s.SecretFile != "" {
		v.fail([]any{"signer", "secret_file"}, "signer: set only one of secret_env and secret_file")
	}
	if s.Keypair == "" && s.SecretEnv == "" && s.SecretFile == "" && s.PublicKey == "" {
		v.fail([]any{"signer"}, "signer: one of keypair, secret_env, secret_file or (to only read) pubkey is required")
	}
	s.Keypair = resolvePath(v.dir, s.Keypair)
	s.SecretFile = resolvePath(v.dir, s.SecretFile)
	for kind, ids := range s.ExtraPrograms {
		if !slices.Contains(ActionKinds, kind) {
			v.fail([]any{"signer", "extra_programs", kind}, "signer.extra_programs: unknown action kind %q (known: %s)", kind, strings.Join(ActionKinds, ", "))
		}
		for i, id := range ids {
			v.pubkey([]any{"signer", "extra_programs", kind, i}, "signer.extra_programs."+kind, id, true)
		}
	}
}

func (v *validator) misc(c *Config) {
	if dsn := c.Journal.DSN; !dsn.Shared() && (!strings.HasPrefix(string(dsn), "sqlite:") || dsn == "sqlite:") {
		v.fail([]any{"journal", "dsn"}, "journal.dsn must be sqlite:PATH, sqlite::memory: or postgres://USER@HOST/DATABASE, got %s",
			strictyaml.Excerpt(dsn.String()))
	}
	if dsn := c.Journal.DSN; dsn.Shared() {
		if u, err := url.Parse(dsn.Reveal()); err != nil || u.Host == "" || len(u.Path) < 2 {
			v.fail([]any{"journal", "dsn"}, "journal.dsn must be postgres://USER@HOST/DATABASE (a host and a database), got %s",
				strictyaml.Excerpt(dsn.String()))
		}
	}
	if l := c.Journal.Lease; l < MinLease || l > MaxLease {
		v.fail([]any{"journal", "lease"}, "journal.lease must be from %s to %s, got %s", MinLease, MaxLease, l)
	}
	if r := c.Journal.Retention; r != 0 && r < MinRetention {
		v.fail([]any{"journal", "retention"}, "journal.retention must be 0 (keep everything) or at least %s, got %s", MinRetention, r)
	}
	if c.HTTP.Listen != "" {
		if _, port, err := net.SplitHostPort(c.HTTP.Listen); err != nil {
			v.fail([]any{"http", "listen"}, "http.listen must be host:port, got %s", strictyaml.Excerpt(c.HTTP.Listen))
		} else if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			v.fail([]any{"http", "listen"}, "http.listen: the port must be a number from 0 to 65535, got %s", strictyaml.Excerpt(port))
		}
	}
	if len(c.Policies) == 0 {
		v.fail([]any{"policies"}, "policies: at least one policy file glob is required")
	}
	for i, g := range c.Policies {
		if g == "" {
			v.fail([]any{"policies", i}, "policies: empty glob")
		}
	}
	if !slices.Contains([]string{"debug", "info", "warn", "error"}, c.Log.Level) {
		v.fail([]any{"log", "level"}, "log.level must be debug, info, warn or error, got %s", strictyaml.Excerpt(c.Log.Level))
	}
	if !slices.Contains([]string{"auto", "text", "json"}, c.Log.Format) {
		v.fail([]any{"log", "format"}, "log.format must be auto, text or json, got %s", strictyaml.Excerpt(c.Log.Format))
	}
	if c.PolicyConcurrency < 1 || c.PolicyConcurrency > 256 {
		v.fail([]any{"policy_concurrency"}, "policy_concurrency must be from 1 to 256, got %d", c.PolicyConcurrency)
	}
	c.KillSwitch = resolvePath(v.dir, c.KillSwitch)
	for mint, t := range c.Tokens {
		v.pubkey([]any{"tokens"}, "tokens", mint, true)
		if t.Symbol == "" || t.Decimals > 18 {
			v.fail([]any{"tokens", mint}, "tokens.%s needs a symbol and decimals from 0 to 18", mint)
		}
	}
	v.prices(&c.Prices)
	v.explorer(c)
}

// explorer fills the explorer's defaults from chain.rpc_url and checks that
// it can make links.
func (v *validator) explorer(c *Config) {
	e := &c.Explorer
	c.explorerDefaults = e.Name == "" && e.Cluster == ""
	if e.Cluster == "" {
		e.Cluster = clusterOf(c.Chain.RPCURL.Reveal())
	}
	if e.Name == "" {
		e.Name = explorer.Solscan
		if e.Cluster == explorer.Custom {
			e.Name = explorer.Solana // solscan shows no custom cluster
		}
	}
	if _, err := e.Links(c.Chain.RPCURL); err != nil {
		v.fail([]any{"explorer"}, "explorer: %v", err)
	}
}

func (v *validator) prices(p *Prices) {
	v.positive([]any{"prices", "max_age"}, "prices.max_age", p.MaxAge > 0)
	if !(p.MaxConfidence > 0 && p.MaxConfidence <= 1) {
		v.fail([]any{"prices", "max_confidence"}, "prices.max_confidence must be a fraction of the price above 0 and at most 1, got %v", p.MaxConfidence)
	}
	for _, mint := range slices.Sorted(maps.Keys(p.Feeds)) {
		f := p.Feeds[mint]
		at := []any{"prices", "feeds", mint}
		v.pubkey([]any{"prices", "feeds"}, "prices.feeds", mint, true)
		switch {
		case (f.Pyth == "") == (f.USD == 0):
			v.fail(at, "prices.feeds.%s needs exactly one of pyth (a feed id) and usd (a static price)", mint)
		case f.Pyth != "":
			if _, err := prices.ParseFeedID(f.Pyth); err != nil {
				v.fail(append(at, "pyth"), "prices.feeds.%s.pyth: %v", mint, err)
			}
			v.pubkey(append(at, "account"), "prices.feeds."+mint+".account", f.Account, false)
		case !(f.USD > 0) || math.IsInf(f.USD, 0):
			v.fail(append(at, "usd"), "prices.feeds.%s.usd must be a positive price, got %v", mint, f.USD)
		}
		if f.USD != 0 && f.Account != "" {
			v.fail(append(at, "account"), "prices.feeds.%s: account belongs with pyth, not a static usd price", mint)
		}
	}
}

func (v *validator) notifier(i int, n *Notifier) {
	at := func(k string) []any { return []any{"notifiers", i, k} }
	if n.Name == "" {
		v.fail(at("name"), "notifiers[%d].name is required", i)
	}
	if !slices.Contains(notify.Formats, notify.Format(n.Type)) {
		v.fail(at("type"), "notifiers[%d].type must be webhook, slack, discord, telegram, pagerduty or email, got %s", i, strictyaml.Excerpt(n.Type))
	}
	switch n.Type {
	case "telegram":
		if n.ChatID == "" {
			v.fail(at("chat_id"), "notifiers[%d].chat_id is required for telegram (the chat the bot posts to)", i)
		}
	case "pagerduty":
		if n.RoutingKeyFile != "" {
			if n.RoutingKey != "" {
				v.fail(at("routing_key_file"), "notifiers[%d]: set routing_key or routing_key_file, not both", i)
			}
			n.RoutingKey = Secret(v.readSecretFile(at("routing_key_file"), n.RoutingKeyFile))
		}
		if n.RoutingKey == "" {
			v.fail(at("routing_key"), "notifiers[%d].routing_key (or routing_key_file) is required for pagerduty", i)
		}
		if n.URL == "" && n.URLFile == "" {
			n.URL = notify.PagerDutyEventsURL
		}
	}
	if n.URLFile != "" {
		if n.URL != "" {
			v.fail(at("url_file"), "notifiers[%d]: set url or url_file, not both", i)
		}
		n.URL = URL(v.readSecretFile(at("url_file"), n.URLFile))
	}
	if n.Type == "email" {
		v.emailNotifier(i, n)
	} else {
		v.url(at("url"), "notifiers[].url", string(n.URL), true)
	}
	v.positive(at("timeout"), "notifiers[].timeout", n.Timeout > 0)
	if n.Retries < 0 {
		v.fail(at("retries"), "notifiers[%d].retries must not be negative", i)
	}
}

// emailNotifier checks an email notifier: an smtp:// or smtps:// server, a
// sender, recipients, and a password only with a username.
func (v *validator) emailNotifier(i int, n *Notifier) {
	at := func(k string) []any { return []any{"notifiers", i, k} }
	if n.PasswordFile != "" {
		if n.Password != "" {
			v.fail(at("password_file"), "notifiers[%d]: set password or password_file, not both", i)
		}
		n.Password = Secret(v.readSecretFile(at("password_file"), n.PasswordFile))
	}
	_, err := notify.NewEmail(n.Name, notify.EmailOptions{URL: n.URL.Reveal(), From: n.From, To: n.To})
	if err != nil {
		v.fail(at("url"), "%v", err)
	}
	if n.Password != "" && n.Username == "" {
		v.fail(at("username"), "notifiers[%d].username is required with a password", i)
	}
}

// written reports whether the config file itself sets the key at path.
func (v *validator) written(path ...string) bool {
	n := v.root
	for _, key := range path {
		k := strictyaml.FindKey(n, key)
		if k == n {
			return false
		}
		n = strictyaml.Find(n, key)
	}
	return true
}

func (v *validator) secret(path []any, name string, a *Auth) {
	if a.ValueFile != "" {
		if a.Value != "" {
			v.fail(append(path, "value_file"), "%s: set value or value_file, not both", name)
		}
		a.Value = Secret(v.readSecretFile(append(path, "value_file"), a.ValueFile))
	}
	if a.Value != "" && a.Header == "" && name != "chain.jito_auth" {
		v.fail(append(path, "header"), "%s.header is required when a value is set", name)
	}
	if a.Header != "" {
		v.header(append(path, "header"), name+".header", a.Header, true)
	}
}

func (v *validator) readSecretFile(path []any, p string) string {
	data, err := os.ReadFile(resolvePath(v.dir, p))
	if err != nil {
		v.fail(path, "cannot read secret file %s: %v", p, errorWithoutContent(err))
		return ""
	}
	s := strings.TrimSpace(string(data))
	if s == "" {
		v.fail(path, "secret file %s is empty", p)
	}
	return s
}

// errorWithoutContent keeps only the operation's failure, never file content.
func errorWithoutContent(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (v *validator) url(path []any, name, raw string, required bool) {
	if raw == "" {
		if required {
			v.fail(path, "%s is required", name)
		}
		return
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		got := RedactURL(raw)
		if !strings.Contains(raw, "://") && !strings.ContainsAny(raw, "/?@") {
			got = strictyaml.Excerpt(raw) // a plain word is no keyed URL: show it
		}
		v.fail(path, "%s must be an http:// or https:// URL%s, got %s", name, monikerHint(name), got)
	}
}

// wsURL checks an optional websocket URL: ws:// or wss:// with a host.
func (v *validator) wsURL(path []any, name, raw string) {
	if raw == "" {
		return
	}
	if u, err := url.Parse(raw); err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		v.fail(path, "%s must be a ws:// or wss:// URL, got %s", name, RedactURL(raw))
	}
}

// monikerHint names the monikers an RPC URL key also takes.
func monikerHint(name string) string {
	if strings.HasPrefix(name, "chain.rpc_url") {
		return " or one of mainnet-beta, devnet, testnet, localhost"
	}
	return ""
}

// solanaCLI takes chain.rpc_url and signer.keypair from the Solana CLI's
// config file when the config file sets neither the key nor (for the
// keypair) another key source, as the Solana tools do.
func (v *validator) solanaCLI(c *Config, lookupEnv func(string) (string, bool)) {
	needRPC := !v.written("chain", "rpc_url")
	needKey := !v.written("signer", "keypair") && !v.written("signer", "secret_env") && !v.written("signer", "secret_file") &&
		!v.written("signer", "pubkey")
	if !needRPC && !needKey {
		return
	}
	cli, err := readSolanaCLI(solanaCLIPath(lookupEnv))
	if err != nil {
		v.fail([]any{}, "%v", err)
		return
	}
	if cli == nil {
		return
	}
	if needRPC && cli.RPCURL != "" {
		c.Chain.RPCURL = URL(cli.RPCURL)
		c.FromSolanaCLI = append(c.FromSolanaCLI, "chain.rpc_url")
	}
	if needKey && cli.Keypair != "" {
		c.Signer.Keypair = cli.Keypair
		c.FromSolanaCLI = append(c.FromSolanaCLI, "signer.keypair")
	}
	if len(c.FromSolanaCLI) > 0 {
		c.SolanaCLIPath = cli.Path
	}
	v.fromCLI = c.FromSolanaCLI
}

func (v *validator) header(path []any, name, h string, required bool) {
	if h == "" {
		if required {
			v.fail(path, "%s is required", name)
		}
		return
	}
	if strings.ContainsAny(h, " :\t\r\n") {
		v.fail(path, "%s %q is not a valid HTTP header name", name, h)
	}
}

func (v *validator) pubkey(path []any, name, s string, required bool) {
	if s == "" {
		if required {
			v.fail(path, "%s is required (a base58 program id)", name)
		}
		return
	}
	if b, err := base58.Decode(s); err != nil || len(b) != 32 {
		v.fail(path, "%s: %s is not a base58 public key of 32 bytes", name, strictyaml.Excerpt(s))
	}
}

func (v *validator) positive(path []any, name string, ok bool) {
	if !ok {
		v.fail(path, "%s must be positive", name)
	}
}

func (v *validator) rate(path []any, name string, r RateLimit) {
	if r.RPS <= 0 {
		v.fail(append(path, "rps"), "%s.rps must be positive, got %g", name, r.RPS)
	}
	if r.Burst < 1 {
		v.fail(append(path, "burst"), "%s.burst must be at least 1, got %d", name, r.Burst)
	}
}

func (v *validator) retry(path []any, r Retry) {
	if r.Attempts < 1 {
		v.fail(append(path, "attempts"), "%s.retry.attempts must be at least 1, got %d", path[0], r.Attempts)
	}
	if r.Base <= 0 || r.Max < r.Base {
		v.fail(path, "%s.retry needs 0 < base <= max, got base %s, max %s", path[0], r.Base, r.Max)
	}
}

// basePathIsV1 reports whether raw's path (not its query or fragment) ends in /v1, with or without a
// trailing slash: a keyed URL such as https://host/v1?key=X is a valid API root.
func basePathIsV1(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	return strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/v1")
}
