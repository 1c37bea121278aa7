package config

import (
	"maps"
	"math"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/keeper-project/keeper/internal/strictyaml"
	"github.com/keeper-project/keeper/keeper/explorer"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/prices"

	"github.com/keeper-project/keeper/internal/redact"
)

// validate checks the market section.
func (m *Market) validate(v *validator) {
	v.url([]any{"market", "base_url"}, "market.base_url", string(m.BaseURL), true)
	if !basePathIsV1(string(m.BaseURL)) {
		v.fail([]any{"market", "base_url"}, "market.base_url must end in /v1 (the API version segment), got %s", redact.URL(string(m.BaseURL)))
	}
	v.positive([]any{"market", "timeout"}, "market.timeout", m.Timeout > 0)
	m.Auth.validate(v, []any{"market", "auth"}, "market.auth")
	v.header([]any{"market", "wallet_header"}, "market.wallet_header", m.WalletHeader, true)
	v.header([]any{"market", "payer_header"}, "market.payer_header", m.PayerHeader, true)
	m.RateLimit.validate(v, []any{"market", "rate_limit"}, "market.rate_limit")
	m.Retry.validate(v, []any{"market", "retry"})
	v.pubkey([]any{"market", "program_id"}, "market.program_id", m.ProgramID, true)
	v.pubkey([]any{"market", "earn_program_id"}, "market.earn_program_id", m.EarnProgramID, false)
	if m.PageSize < 1 || m.PageSize > maxPageSize {
		v.fail([]any{"market", "page_size"}, "market.page_size must be 1 to %d, got %d", maxPageSize, m.PageSize)
	}
	if m.PagesInFlight < 1 || m.PagesInFlight > maxPagesInFlight {
		v.fail([]any{"market", "pages_in_flight"}, "market.pages_in_flight must be 1 to %d, got %d", maxPagesInFlight, m.PagesInFlight)
	}
	if m.SetupPlacement != "first" && m.SetupPlacement != "anywhere" {
		v.fail([]any{"market", "setup_placement"}, "market.setup_placement must be first or anywhere, got %s", strictyaml.Excerpt(m.SetupPlacement))
	}
	p := m.Paths
	paths := []struct{ key, val string }{{"dex_a", p.DexA}, {"dex_b", p.DexB}, {"gateway", p.Gateway}, {"provider", p.Provider},
		{"earn_position", p.EarnPosition}, {"earn_withdrawal_queue", p.EarnWithdrawalQueue}, {"earn_withdraw_request", p.EarnWithdrawRequest}}
	for _, kv := range paths {
		if kv.val == "" || strings.HasPrefix(kv.val, "/") || strings.ContainsAny(kv.val, "?# ") {
			v.fail([]any{"market", "paths", kv.key}, "market.paths.%s must be a relative path without spaces, query or fragment, got %s", kv.key, strictyaml.Excerpt(kv.val))
		}
	}
	m.Fields.WithdrawalQueue.validate(v)
}

// validate checks the withdrawal queue's member names: each a plain JSON
// member name, the list not the queue's own address, and a request's
// members all different.
func (f WithdrawalQueueFields) validate(v *validator) {
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

// validate checks the chain section, resolving the RPC URLs' monikers.
func (c *Chain) validate(v *validator) {
	c.RPCURL = URL(ResolveURL(string(c.RPCURL)))
	v.url([]any{"chain", "rpc_url"}, "chain.rpc_url", string(c.RPCURL), true)
	for i, u := range c.RPCURLs {
		c.RPCURLs[i] = URL(ResolveURL(string(u)))
		v.url([]any{"chain", "rpc_urls", i}, "chain.rpc_urls", string(c.RPCURLs[i]), true)
	}
	v.url([]any{"chain", "send_url"}, "chain.send_url", string(c.SendURL), false)
	v.url([]any{"chain", "simulate_bundle_url"}, "chain.simulate_bundle_url", string(c.SimulateBundleURL), false)
	v.url([]any{"chain", "jito_url"}, "chain.jito_url", string(c.JitoURL), false)
	c.JitoAuth.validate(v, []any{"chain", "jito_auth"}, "chain.jito_auth")
	v.url([]any{"chain", "tip_floor_url"}, "chain.tip_floor_url", string(c.TipFloorURL), false)
	if c.Commitment != "confirmed" && c.Commitment != "finalized" {
		v.fail([]any{"chain", "commitment"}, "chain.commitment must be confirmed or finalized (a processed transaction may still be rolled back), got %s", strictyaml.Excerpt(c.Commitment))
	}
	v.positive([]any{"chain", "timeout"}, "chain.timeout", c.Timeout > 0)
	v.positive([]any{"chain", "jito_rps"}, "chain.jito_rps", c.JitoRPS > 0)
	v.positive([]any{"chain", "rebroadcast"}, "chain.rebroadcast", c.Rebroadcast > 0)
	v.positive([]any{"chain", "poll"}, "chain.poll", c.Poll > 0)
	v.positive([]any{"chain", "watch_poll"}, "chain.watch_poll", c.WatchPoll > 0)
	if c.Confirm != "websocket" && c.Confirm != "poll" {
		v.fail([]any{"chain", "confirm"}, "chain.confirm must be websocket or poll, got %s", strictyaml.Excerpt(c.Confirm))
	}
	v.wsURL([]any{"chain", "ws_url"}, "chain.ws_url", string(c.WSURL))
	c.RateLimit.validate(v, []any{"chain", "rate_limit"}, "chain.rate_limit")
	c.Retry.validate(v, []any{"chain", "retry"})
	c.Tip.validate(v)
	if p := c.Priority; p.UnitMarginPercent > 100 || p.RaisePercent > 1000 {
		v.fail([]any{"chain", "priority"}, "chain.priority: unit_margin_percent must be 0 to 100 and raise_percent 0 to 1000, got %d and %d", p.UnitMarginPercent, p.RaisePercent)
	}
	// The dex programs are needed by the policies that act on or read CLMM
	// positions; keeper.CheckPrograms says which lack one.
	v.pubkey([]any{"chain", "dex_a_program"}, "chain.dex_a_program", c.DexAProgram, false)
	v.pubkey([]any{"chain", "dex_b_program"}, "chain.dex_b_program", c.DexBProgram, false)
}

// validate checks the tip's bounds and fallback.
func (t Tip) validate(v *validator) {
	if t.FloorLamports < 1000 {
		v.fail([]any{"chain", "tip", "floor_lamports"}, "chain.tip.floor_lamports must be at least 1000 (the block engine's minimum tip), got %d", t.FloorLamports)
	}
	if t.MaxLamports < t.FloorLamports {
		v.fail([]any{"chain", "tip", "max_lamports"}, "chain.tip.max_lamports (%d) is below floor_lamports (%d)", t.MaxLamports, t.FloorLamports)
	}
	if t.Fallback != "rpc" && t.Fallback != "refuse" {
		v.fail([]any{"chain", "tip", "fallback"}, "chain.tip.fallback must be rpc or refuse, got %s", strictyaml.Excerpt(t.Fallback))
	}
	for i, a := range t.Accounts {
		path := []any{"chain", "tip", "accounts", i}
		name := "chain.tip.accounts[" + strconv.Itoa(i) + "]"
		switch {
		case a == "":
			v.fail(path, "%s is empty; want a tip account's base58 address", name)
		case slices.Index(t.Accounts, a) < i:
			v.fail(path, "%s: %s is listed twice", name, strictyaml.NameExcerpt(a))
		default:
			v.pubkey(path, name, a, false)
		}
	}
}

// validate checks the signer section: one key source (or a read-only
// public key), paths resolved, extra programs by known action kind.
func (s *Signer) validate(v *validator) {
	v.pubkey([]any{"signer", "pubkey"}, "signer.pubkey", s.PublicKey, false)
	if s.PublicKey != "" && !v.written("signer", "keypair") && s.SecretEnv == "" && s.SecretFile == "" && !v.usesCLIKeypair() {
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
	if s.PKCS11 != nil {
		if v.written("signer", "keypair") || s.SecretEnv != "" || s.SecretFile != "" {
			v.fail([]any{"signer", "pkcs11"}, "signer: set only one of keypair, secret_env, secret_file and pkcs11")
		}
		s.Keypair = "" // the default keypair path yields to the token
		s.PKCS11.validate(v)
	}
	if !s.HasKey() && s.PublicKey == "" {
		v.fail([]any{"signer"}, "signer: one of keypair, secret_env, secret_file, pkcs11 or (to only read) pubkey is required")
	}
	s.Keypair = resolvePath(v.dir, s.Keypair)
	s.SecretFile = resolvePath(v.dir, s.SecretFile)
	for kind, ids := range s.ExtraPrograms {
		if !slices.Contains(ActionKinds, kind) {
			v.fail([]any{"signer", "extra_programs", kind}, "signer.extra_programs: unknown action kind %s (known: %s)", strictyaml.NameExcerpt(kind), strings.Join(ActionKinds, ", "))
		}
		for i, id := range ids {
			v.pubkey([]any{"signer", "extra_programs", kind, i}, "signer.extra_programs."+strictyaml.PathSegment(kind), id, true)
		}
	}
}

// validate checks the journal's DSN, lease and retention.
func (j Journal) validate(v *validator) {
	if dsn := j.DSN; !dsn.Shared() && (!strings.HasPrefix(string(dsn), "sqlite:") || dsn == "sqlite:") {
		v.fail([]any{"journal", "dsn"}, "journal.dsn must be sqlite:PATH, sqlite::memory: or postgres://USER@HOST/DATABASE, got %s",
			strictyaml.Excerpt(dsn.String()))
	}
	if p, ok := strings.CutPrefix(j.DSN.Reveal(), "sqlite:"); ok && p != "" && p != ":memory:" {
		v.journalFolder(resolvePath(v.dir, p))
	}
	if dsn := j.DSN; dsn.Shared() {
		if u, err := url.Parse(dsn.Reveal()); err != nil || u.Host == "" || len(u.Path) < 2 {
			v.fail([]any{"journal", "dsn"}, "journal.dsn must be postgres://USER@HOST/DATABASE (a host and a database), got %s",
				strictyaml.Excerpt(dsn.String()))
		}
	}
	if l := j.Lease; l < MinLease || l > MaxLease {
		v.fail([]any{"journal", "lease"}, "journal.lease must be from %s to %s, got %s", MinLease, MaxLease, l)
	}
	if r := j.Retention; r != 0 && r < MinRetention {
		v.fail([]any{"journal", "retention"}, "journal.retention must be 0 (keep everything) or at least %s, got %s", MinRetention, r)
	}
}

// validate checks the operations endpoint's listen address, when set.
func (h HTTP) validate(v *validator) {
	if h.Listen == "" {
		return
	}
	if _, port, err := net.SplitHostPort(h.Listen); err != nil {
		v.fail([]any{"http", "listen"}, "http.listen must be host:port, got %s", strictyaml.Excerpt(h.Listen))
	} else if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		v.fail([]any{"http", "listen"}, "http.listen: the port must be a number from 0 to 65535, got %s", strictyaml.Excerpt(port))
	}
}

// validate checks the log level and format.
func (l Log) validate(v *validator) {
	if !slices.Contains([]string{"debug", "info", "warn", "error"}, l.Level) {
		v.fail([]any{"log", "level"}, "log.level must be debug, info, warn or error, got %s", strictyaml.Excerpt(l.Level))
	}
	if !slices.Contains([]string{"auto", "text", "json"}, l.Format) {
		v.fail([]any{"log", "format"}, "log.format must be auto, text or json, got %s", strictyaml.Excerpt(l.Format))
	}
}

// validate checks the price bounds and each mint's one source.
func (p *Prices) validate(v *validator) {
	v.positive([]any{"prices", "max_age"}, "prices.max_age", p.MaxAge > 0)
	if !(p.MaxConfidence > 0 && p.MaxConfidence <= 1) {
		v.fail([]any{"prices", "max_confidence"}, "prices.max_confidence must be a fraction of the price above 0 and at most 1, got %v", p.MaxConfidence)
	}
	for _, mint := range slices.Sorted(maps.Keys(p.Feeds)) {
		f := p.Feeds[mint]
		at := []any{"prices", "feeds", mint}
		name := "prices.feeds." + strictyaml.PathSegment(mint) // a long key may be a secret pasted there
		v.pubkey([]any{"prices", "feeds"}, "prices.feeds", mint, true)
		switch {
		case (f.Pyth == "") == (f.USD == 0):
			v.fail(at, "%s needs exactly one of pyth (a feed id) and usd (a static price)", name)
		case f.Pyth != "":
			if _, err := prices.ParseFeedID(f.Pyth); err != nil {
				v.fail(append(at, "pyth"), "%s.pyth: %v", name, err)
			}
			v.pubkey(append(at, "account"), name+".account", f.Account, false)
		case !(f.USD > 0) || math.IsInf(f.USD, 0):
			v.fail(append(at, "usd"), "%s.usd must be a positive price, got %v", name, f.USD)
		}
		if f.USD != 0 && f.Account != "" {
			v.fail(append(at, "account"), "%s: account belongs with pyth, not a static usd price", name)
		}
	}
}

// validate fills the explorer's defaults from the RPC URL and checks that
// it can make links.
func (e *Explorer) validate(v *validator, rpc URL) {
	if e.Cluster == "" {
		e.Cluster = clusterOf(rpc.Reveal())
	}
	if e.Name == "" {
		e.Name = explorer.Solscan
		if e.Cluster == explorer.Custom {
			e.Name = explorer.Solana // solscan shows no custom cluster
		}
	}
	if _, err := e.Links(rpc); err != nil {
		v.fail([]any{"explorer"}, "explorer: %v", err)
	}
}

// journalFolder fails unless the folder of the SQLite journal at path
// exists: opening the journal creates the file, not its folder.
func (v *validator) journalFolder(path string) {
	dir := filepath.Dir(path)
	switch st, err := os.Stat(dir); {
	case err != nil:
		v.fail([]any{"journal", "dsn"}, "journal.dsn: the journal's folder %s cannot be used: %v", dir, errorWithoutContent(err))
	case !st.IsDir():
		v.fail([]any{"journal", "dsn"}, "journal.dsn: the journal's folder %s is not a folder", dir)
	}
}
