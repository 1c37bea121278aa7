package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var testEnv = map[string]string{
	"MARKET_KEY":    "mk-very-secret-value",
	"RPC_KEY":       "rpc-very-secret-key",
	"KEEPER_SECRET": "unused-in-config",
}

func lookup(k string) (string, bool) { v, ok := testEnv[k]; return v, ok }

func load(t *testing.T, name string) (*Config, error) {
	t.Helper()
	path := filepath.Join("testdata", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return Load(path, dir, data, lookup)
}

func TestMinimalGetsDefaults(t *testing.T) {
	c, err := load(t, "minimal.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := Default()
	if c.Market.BaseURL != d.Market.BaseURL || c.Market.Timeout != 10*time.Second || c.Market.WalletHeader != "user-wallet" {
		t.Errorf("market defaults lost: %+v", c.Market)
	}
	if c.Market.Paths.DexA != "dex-a" || c.Market.Paths.DexB != "dex-b" || c.Market.Paths.Gateway != "gateway" || c.Market.Paths.Provider != "provider-a" {
		t.Errorf("stand-in paths = %+v", c.Market.Paths)
	}
	if c.Chain.Commitment != "confirmed" || c.Chain.Tip.FloorLamports != 10_000 || c.Log.Format != "auto" || c.HTTP.Listen != "127.0.0.1:9464" {
		t.Errorf("chain/log/http defaults lost: %+v %+v", c.Chain, c.Log)
	}
	if c.Chain.JitoRPS != 1 {
		t.Errorf("chain.jito_rps = %g, want Jito's default limit, 1", c.Chain.JitoRPS)
	}
	home, _ := os.UserHomeDir()
	if c.Signer.Keypair != filepath.Join(home, ".config/solana/id.json") {
		t.Errorf("keypair = %q, want ~ expanded", c.Signer.Keypair)
	}
	if want := filepath.Join(c.Dir, "keeper.db"); c.JournalPath() != want {
		t.Errorf("journal path = %q, want %q", c.JournalPath(), want)
	}
}

func TestFullConfig(t *testing.T) {
	c, err := load(t, "full.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Market.Auth.Value.Reveal() != "mk-very-secret-value" {
		t.Errorf("auth value not expanded from env")
	}
	if c.Chain.RPCURL.Reveal() != "https://rpc.example/?api-key=rpc-very-secret-key" {
		t.Errorf("rpc url = %q", c.Chain.RPCURL.Reveal())
	}
	if c.Chain.JitoAuth.Value.Reveal() != "jito-uuid-secret-1234" {
		t.Errorf("jito auth from value_file = %q", c.Chain.JitoAuth.Value.Reveal())
	}
	if got := c.Notifiers[0].URL.Reveal(); !strings.HasPrefix(got, "https://hooks.slack.example/") {
		t.Errorf("slack url from url_file = %q", got)
	}
	if c.Notifiers[0].Retries != 3 || c.Notifiers[1].Retries != 5 || c.Notifiers[0].DedupWindow != time.Hour {
		t.Errorf("notifier defaults: %+v", c.Notifiers)
	}
	if c.Signer.Keypair != "" || c.Signer.SecretEnv != "KEEPER_SECRET" {
		t.Errorf("secret_env must replace the default keypair: %+v", c.Signer)
	}
	if c.Market.Paths.Gateway != "gw" || c.Market.Paths.DexB != "dex-b" {
		t.Errorf("paths override merged wrongly: %+v", c.Market.Paths)
	}
	if f := c.Market.Fields.WithdrawalQueue; f.Requests != "items" || f.RequestID != "id" || f.Filled != "filled_amount" ||
		f.Requested != "requestedAmount" || f.CreatedTime != "createdTime" {
		t.Errorf("withdrawal queue fields merged wrongly: %+v", f)
	}
	if tok := c.Tokens["SimMarket1111111111111111111111111111111111"]; tok.Symbol != "MKT" || tok.Decimals != 6 {
		t.Errorf("tokens = %+v", c.Tokens)
	}
	if p := c.Prices; p.MaxAge != 90*time.Second || p.MaxConfidence != DefaultPriceMaxConfidence ||
		p.Feeds["So11111111111111111111111111111111111111112"].Pyth == "" || p.Feeds["SimMarket1111111111111111111111111111111111"].USD != 0.5 {
		t.Errorf("prices = %+v", p)
	}
	if !c.DryRun || c.Log.Level != "debug" || c.Chain.Tip.Fallback != "rpc" || c.Market.RateLimit.RPS != 2.5 {
		t.Errorf("values not decoded: %+v", c)
	}
}

func TestBadConfigs(t *testing.T) {
	cases := map[string][]string{
		"unknown.bad.yaml": {
			`testdata/unknown.bad.yaml:3:3: unknown field "progam_id" in market (did you mean "program_id"?)`,
			`testdata/unknown.bad.yaml:7:1: unknown field "polices" at the top level (did you mean "policies"?)`,
		},
		"types.bad.yaml": {
			`types.bad.yaml:2:12: market.timeout: "soon" is not a duration`,
			`types.bad.yaml:3:22: market.rate_limit.rps: expected a number, got "fast"`,
			`types.bad.yaml:5:15: chain.commitment: expected a string, got a list`,
			`types.bad.yaml:6:10: dry_run: expected true or false, got "maybe"`,
		},
		"semantic.bad.yaml": {
			`semantic.bad.yaml:2:13: market.base_url must end in /v1`,
			`semantic.bad.yaml:3:15: market.program_id: "not-a-key" is not a base58 public key`,
			`semantic.bad.yaml:4:9: market.auth.header is required when a value is set`,
			`semantic.bad.yaml:6:12: chain.rpc_url must be an http:// or https:// URL`,
			`semantic.bad.yaml:7:15: chain.commitment must be confirmed or finalized (a processed transaction may still be rolled back), got "recent"`,
			`semantic.bad.yaml:8:26: chain.tip.floor_lamports must be at least 1000`,
			`semantic.bad.yaml:8:45: chain.tip.max_lamports (100) is below floor_lamports (500)`,
			`semantic.bad.yaml:8:60: chain.tip.fallback must be rpc or refuse, got "maybe"`,
			`semantic.bad.yaml:11:12: signer: set only one of keypair, secret_env and secret_file`,
			`semantic.bad.yaml:13:29: signer.extra_programs: unknown action kind "borrow"`,
			`semantic.bad.yaml:14:17: journal.dsn must be postgres://USER@HOST/DATABASE`,
			`semantic.bad.yaml:15:17: http.listen must be host:port, got "9464"`,
			`semantic.bad.yaml:16:11: policies: at least one policy file glob is required`,
			`semantic.bad.yaml:18:5: notifiers[0].name is required`,
			`semantic.bad.yaml:18:13: notifiers[0].type must be webhook, slack, discord, telegram, pagerduty or email, got "pager"`,
			`semantic.bad.yaml:18:25: notifiers[].url must be an http:// or https:// URL`,
			`semantic.bad.yaml:19:15: log.level must be debug, info, warn or error, got "loud"`,
			`semantic.bad.yaml:19:29: log.format must be auto, text or json, got "xml"`,
			`semantic.bad.yaml:21:3: tokens: "notamint" is not a base58 public key`,
			`semantic.bad.yaml:21:13: tokens.notamint needs a symbol and decimals from 0 to 18`,
			`semantic.bad.yaml:23:12: prices.max_age must be positive`,
			`semantic.bad.yaml:24:19: prices.max_confidence must be a fraction of the price above 0 and at most 1, got 1.5`,
			`semantic.bad.yaml:26:50: prices.feeds.So11111111111111111111111111111111111111112 needs exactly one of pyth (a feed id) and usd (a static price)`,
			`semantic.bad.yaml:27:59: prices.feeds.EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v.pyth: a Pyth feed id is 64 hex digits`,
			`semantic.bad.yaml:28:57: prices.feeds.JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN.usd must be a positive price, got -1`,
			`semantic.bad.yaml:29:71: prices.feeds.jtojtomepa8beP8AuQc6eXt5FriJwfFMwQx2v2f9mCL: account belongs with pyth, not a static usd price`,
		},
		"fields.bad.yaml": {
			`fields.bad.yaml:5:17: market.fields.withdrawal_queue.requests must not be "address", the queue's own member`,
			`fields.bad.yaml:6:19: market.fields.withdrawal_queue.request_id must be a JSON member name without dots or spaces, got "request.id"`,
			`fields.bad.yaml:7:15: market.fields.withdrawal_queue.wallet must be a JSON member name without dots or spaces, got "the wallet"`,
			`fields.bad.yaml:8:15: market.fields.withdrawal_queue.filled is "requestedAmount", as requested is: each member of a request needs its own name`,
			`fields.bad.yaml:9:16: market.fields.withdrawal_queue.claimed must be a JSON member name without dots or spaces, got ""`,
		},
		"confirm.bad.yaml": {
			`confirm.bad.yaml:4:12: chain.confirm must be websocket or poll, got "push"`,
			`confirm.bad.yaml:5:11: chain.ws_url must be a ws:// or wss:// URL, got https://rpc.example.com`,
		},
		"env.bad.yaml":     {`env.bad.yaml:2:33: market.auth.value: environment variable NOT_SET_ANYWHERE is not set`},
		"twodocs.bad.yaml": {`twodocs.bad.yaml:3:1: a second YAML document is not allowed`},
		"empty.bad.yaml":   {`empty.bad.yaml: file is empty`},
	}
	for name, wants := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := load(t, name)
			if err == nil {
				t.Fatal("loaded without error")
			}
			for _, w := range wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q; got:\n%v", w, err)
				}
			}
			if strings.Contains(err.Error(), "SECRETKEY") {
				t.Errorf("the error echoes a keyed URL's secret:\n%v", err)
			}
		})
	}
}

// loadWithChain loads, as cfg.yaml, a minimal config whose chain section
// opens (on line 3, column 3) with the given line.
func loadWithChain(t *testing.T, line string) (*Config, error) {
	t.Helper()
	data := "market: {program_id: SimMarket1111111111111111111111111111111111}\n" +
		"chain:\n  " + line + "\n" +
		"  dex_a_program: SimDexA111111111111111111111111111111111111\n" +
		"  dex_b_program: SimDexB111111111111111111111111111111111111\n" +
		"policies: [\"policies/*.yaml\"]\n"
	return Load("cfg.yaml", t.TempDir(), []byte(data), lookup)
}

// TestJitoRPS: chain.jito_rps takes a positive rate, and says where a
// rate that is not one is written.
func TestJitoRPS(t *testing.T) {
	for _, tc := range []struct {
		value, err string
	}{
		{"5", ""},
		{"0.5", ""},
		{"0", "cfg.yaml:3:13: chain.jito_rps must be positive"},
		{"-1", "cfg.yaml:3:13: chain.jito_rps must be positive"},
		{".nan", `cfg.yaml:3:13: chain.jito_rps: expected a finite number, got ".nan"`},
		{".inf", `cfg.yaml:3:13: chain.jito_rps: expected a finite number, got ".inf"`},
	} {
		c, err := loadWithChain(t, "jito_rps: "+tc.value)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("jito_rps %s: %v", tc.value, err)
		case tc.err == "" && fmt.Sprint(c.Chain.JitoRPS) != tc.value:
			t.Errorf("jito_rps %s read as %g", tc.value, c.Chain.JitoRPS)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("jito_rps %s: %v, want %q", tc.value, err, tc.err)
		}
	}
}

// TestTipAccounts: chain.tip.accounts is empty by default (keeper asks the
// engine), takes base58 addresses, and names the entry that is not one.
func TestTipAccounts(t *testing.T) {
	const a, b = "96gYZGLnJYVFmbjzopPSU6QiEV5fGqZNyN9nmNhvrZU5", "HFqU5x63VTqvQss8hp11i4wVV8bD44PvwucfZ2bU7gRe"
	for _, tc := range []struct {
		list, err string
	}{
		{"[]", ""},
		{"[" + a + ", " + b + "]", ""},
		{"[" + a + ", nope]", `cfg.yaml:3:67: chain.tip.accounts[1]: "nope" is not a base58 public key of 32 bytes`},
		{"[" + a + ", " + a + "]", "cfg.yaml:3:67: chain.tip.accounts[1]: " + `"` + a + `" is listed twice`},
		{`["", ` + b + "]", "cfg.yaml:3:21: chain.tip.accounts[0] is empty"},
	} {
		c, err := loadWithChain(t, "tip: { accounts: "+tc.list+" }")
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("accounts %s: %v", tc.list, err)
		case tc.err == "" && fmt.Sprint(c.Chain.Tip.Accounts) != strings.ReplaceAll(tc.list, ",", ""):
			t.Errorf("accounts %s read as %v", tc.list, c.Chain.Tip.Accounts)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("accounts %s: %v, want %q", tc.list, err, tc.err)
		}
	}
	if c, err := load(t, "minimal.good.yaml"); err != nil || len(c.Chain.Tip.Accounts) != 0 {
		t.Errorf("default tip accounts %v, %v; want none", c.Chain.Tip.Accounts, err)
	}
}

func TestSecretsNeverPrinted(t *testing.T) {
	c, err := load(t, "full.good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"mk-very-secret-value", "rpc-very-secret-key", "jito-uuid-secret-1234", "XXXXSECRETXXXX", "services/T000"}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "cfg", c, "auth", c.Market.Auth, "rpc", c.Chain.RPCURL)
	slog.New(slog.NewTextHandler(&logs, nil)).Info("config", "auth", c.Market.Auth.Value, "rpc", c.Chain.RPCURL)
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"dump": c.Dump(), "json": string(js), "slog": logs.String(),
		"%v": fmt.Sprintf("%v", c), "%+v": fmt.Sprintf("%+v", *c), "%#v": fmt.Sprintf("%#v", *c),
	}
	for name, out := range outputs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%s output contains secret %q:\n%s", name, s, out)
			}
		}
	}
	if !strings.Contains(c.Dump(), "<secret>") || !strings.Contains(c.Dump(), "https://rpc.example/<secret>") {
		t.Errorf("dump does not show redaction markers:\n%s", c.Dump())
	}
}

func TestErrorsNeverEchoSecrets(t *testing.T) {
	env := func(k string) (string, bool) { return "https://user:pw-secret@rpc.example:99999/?k=key-secret", true }
	src := "market: {program_id: x, base_url: '${U}'}\nchain: {rpc_url: '${U}x:bad'}\npolicies: [a]\n"
	_, err := Load("c.yaml", "", []byte(src), env)
	if err == nil {
		t.Fatal("want errors")
	}
	for _, s := range []string{"pw-secret", "key-secret"} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("error echoes %q: %v", s, err)
		}
	}
}

func TestRepoConfigLoads(t *testing.T) {
	c, err := LoadFile("../../config.yaml")
	if err != nil {
		t.Fatalf("the committed config.yaml must load: %v", err)
	}
	if c.Market.BaseURL != "http://127.0.0.1:7070/v1" || len(c.Policies) == 0 {
		t.Errorf("committed config = %+v", c.Market)
	}
}

func TestJournalDSNHidesItsPassword(t *testing.T) {
	cases := map[DSN]string{
		"sqlite:keeper.db":                                   "sqlite:keeper.db",
		"postgres://keeper@db.internal/keeper":               "postgres://keeper@db.internal/keeper",
		"postgres://keeper:pg-secret@db.internal:5432/k":     "postgres://keeper:<secret>@db.internal:5432/k",
		"postgresql://k@db/keeper?password=pg-secret&ssl=1":  "postgresql://k@db/keeper?<secret>",
		"postgres://keeper:pg-secret@db.internal/k?x=pg-sec": "postgres://keeper:<secret>@db.internal/k?<secret>",
	}
	for in, want := range cases {
		if got := in.String(); got != want {
			t.Errorf("DSN(%q).String() = %q, want %q", in.Reveal(), got, want)
		}
	}
	env := func(string) (string, bool) { return "postgres://keeper:pg-secret@db.internal/keeper", true }
	src := "market: {program_id: SimMarket1111111111111111111111111111111111}\n" +
		"chain: {dex_a_program: SimDexA111111111111111111111111111111111111, dex_b_program: SimDexB111111111111111111111111111111111111}\n" +
		"journal: {dsn: '${PG}', lease: 1s}\npolicies: [a]\n"
	_, err := Load("c.yaml", "", []byte(src), env)
	if err == nil || !strings.Contains(err.Error(), "journal.lease must be from 2s to 1m0s, got 1s") {
		t.Fatalf("Load error = %v, want the lease refused", err)
	}
	if strings.Contains(err.Error(), "pg-secret") {
		t.Errorf("error echoes the password: %v", err)
	}
	src = strings.Replace(src, "lease: 1s", "lease: 10s", 1)
	c, err := Load("c.yaml", "", []byte(src), env)
	if err != nil {
		t.Fatal(err)
	}
	if c.JournalDSN() != "postgres://keeper:pg-secret@db.internal/keeper" || !c.Journal.DSN.Shared() || c.Journal.Lease != 10*time.Second {
		t.Errorf("journal = %+v", c.Journal)
	}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "cfg", c, "dsn", c.Journal.DSN)
	js, _ := json.Marshal(c)
	for name, out := range map[string]string{"dump": c.Dump(), "json": string(js), "slog": logs.String(), "%#v": fmt.Sprintf("%#v", *c)} {
		if strings.Contains(out, "pg-secret") {
			t.Errorf("%s shows the journal's password:\n%s", name, out)
		}
	}
}

// TestCheckRefusesWhatRunRefuses: a rate that is not a finite number and a
// journal whose folder does not exist are errors at their position when
// the config loads (run failed on them later; check said OK).
func TestCheckRefusesWhatRunRefuses(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ line, err string }{
		{"  rate_limit: { rps: .nan }", `cfg.yaml:3:22: chain.rate_limit.rps: expected a finite number, got ".nan"`},
		{"  rate_limit: { rps: .inf }", `cfg.yaml:3:22: chain.rate_limit.rps: expected a finite number, got ".inf"`},
		{"journal: { dsn: 'sqlite:/nonexistent/dir/k.db' }", "cfg.yaml:3:17: journal.dsn: the journal's folder /nonexistent/dir cannot be used: no such file or directory"},
		{"journal: { dsn: 'sqlite:missing/k.db' }", "journal.dsn: the journal's folder " + filepath.Join(dir, "missing") + " cannot be used"},
		{"journal: { dsn: 'sqlite:f/k.db' }", "journal.dsn: the journal's folder " + file + " is not a folder"},
	} {
		data := "market: {program_id: SimMarket1111111111111111111111111111111111}\nchain: {}\n" + tc.line + "\n"
		if strings.HasPrefix(tc.line, "  ") {
			data = "market: {program_id: SimMarket1111111111111111111111111111111111}\nchain:\n" + tc.line + "\n"
		}
		_, err := Load("cfg.yaml", dir, []byte(data), lookup)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v\nwant %q", tc.line, err, tc.err)
		}
	}
	for _, dsn := range []string{"sqlite:k.db", "sqlite::memory:", "sqlite:" + filepath.Join(dir, "k.db")} {
		data := "market: {program_id: SimMarket1111111111111111111111111111111111}\npolicies: [p.yaml]\njournal: { dsn: '" + dsn + "' }\n"
		if _, err := Load("cfg.yaml", dir, []byte(data), lookup); err != nil {
			t.Errorf("%s: %v", dsn, err)
		}
	}
}
