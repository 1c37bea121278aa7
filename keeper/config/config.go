package config

import (
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/keeper-project/keeper/keeper/explorer"
)

// Config holds keeper's daemon settings. Policies live in their own files,
// named by Policies.
type Config struct {
	Market    Market     `yaml:"market"`
	Chain     Chain      `yaml:"chain"`
	Signer    Signer     `yaml:"signer"`
	Journal   Journal    `yaml:"journal"`
	HTTP      HTTP       `yaml:"http"`
	Policies  []string   `yaml:"policies"`  // globs, relative to Dir
	Notifiers []Notifier `yaml:"notifiers"` // where landed/failed/refused/alert messages go
	Log       Log        `yaml:"log"`       // level and format of the daemon's log
	// Tokens names mints for people: symbols and decimals turn smallest
	// units into "412.5 USDC" in reasons, logs and notifications. Keyed by
	// base58 mint; the chain's mint and metadata accounts name the rest.
	Tokens map[string]Token `yaml:"tokens"`
	// Prices says where the USD price of each mint comes from.
	Prices Prices `yaml:"prices"`
	// Explorer says where the links to transactions in logs, history,
	// notifications and /status point.
	Explorer Explorer `yaml:"explorer"`
	// Swap is the DEX aggregator a repay from collateral sells through.
	Swap Swap `yaml:"swap"`
	// Squads configures proposal mode (policies whose authority is a
	// Squads multisig).
	Squads     Squads `yaml:"squads"`
	KillSwitch string `yaml:"kill_switch"` // while this file exists nothing is signed
	DryRun     bool   `yaml:"dry_run"`     // plan and journal, never sign
	// PolicyConcurrency bounds how many policies run at once, in the daemon
	// and in run --once, so a repay waiting to land never delays another
	// policy's claim.
	PolicyConcurrency int `yaml:"policy_concurrency"`
	// ActionConcurrency bounds how many of one policy run's actions are on
	// their way at once, so the last of a crash's repays does not wait for
	// every one before it to land; 1 acts on them one after another.
	ActionConcurrency int `yaml:"action_concurrency"`

	// File is the path the config was loaded from, and Dir its folder.
	File string `yaml:"-"`
	Dir  string `yaml:"-"`
	// FromSolanaCLI names the keys the config file left out that keeper
	// took from the Solana CLI's config (chain.rpc_url, signer.keypair),
	// and SolanaCLIPath that file; the commands say so when they start.
	FromSolanaCLI []string `yaml:"-"`
	SolanaCLIPath string   `yaml:"-"`
	// explorerDefaults is set when the explorer's name and cluster both
	// come from defaults, so they follow a changed RPC URL.
	explorerDefaults bool
}

// Market configures the lending market API client.
type Market struct {
	BaseURL      URL           `yaml:"base_url"` // must end in /v1
	Timeout      time.Duration `yaml:"timeout"`  // per request
	Auth         Auth          `yaml:"auth"`
	WalletHeader string        `yaml:"wallet_header"`
	PayerHeader  string        `yaml:"payer_header"`
	Paths        Paths         `yaml:"paths"`
	Fields       Fields        `yaml:"fields"`
	RateLimit    RateLimit     `yaml:"rate_limit"`
	Retry        Retry         `yaml:"retry"`
	// ProgramID is the market's on-chain program, allowed in every
	// transaction the market builds.
	ProgramID string `yaml:"program_id"`
	// EarnProgramID is the earn vaults' program, allowed in withdrawal claims.
	EarnProgramID string `yaml:"earn_program_id"`
	// PageSize is how many loans a page of a loans walk asks for. The
	// market's maximum is not in the spec: a page 0 refused as a bad
	// request is asked again with half as many loans, down to 100.
	PageSize int `yaml:"page_size"`
	// PagesInFlight is how many pages of a loans walk are requested at
	// once, within the rate limit.
	PagesInFlight int `yaml:"pages_in_flight"`
	// SharedWalkMaxLoans is a retired key, accepted so that an upgrade does
	// not stop a daemon over it, and ignored with a warning (set: not nil):
	// every loan set is read in one walk shared by the policies that fire
	// together, whatever its size.
	SharedWalkMaxLoans *int `yaml:"shared_walk_max_loans"`
	// SetupPlacement is where the market puts a build's setupIxs: "first"
	// (they open the transaction; keeper checks they are there) or
	// "anywhere" (keeper checks the transaction carries them). See
	// assumption M-32 in docs/assumptions.md.
	SetupPlacement string `yaml:"setup_placement"`
}

// Auth is an optional header sent with every request, whose value is a
// secret given inline (usually as ${ENV}) or read from ValueFile.
type Auth struct {
	Header    string `yaml:"header"`
	Value     Secret `yaml:"value"`
	ValueFile string `yaml:"value_file"`
}

// Paths overrides the stand-in path segments of the market API and the
// assumed paths of the earn reads the spec does not show.
type Paths struct {
	DexA                string `yaml:"dex_a"`
	DexB                string `yaml:"dex_b"`
	Gateway             string `yaml:"gateway"`
	Provider            string `yaml:"provider"`
	EarnPosition        string `yaml:"earn_position"`
	EarnWithdrawalQueue string `yaml:"earn_withdrawal_queue"`
	EarnWithdrawRequest string `yaml:"earn_withdraw_request"`
}

// Fields overrides the assumed member names of market answers the spec
// does not show.
type Fields struct {
	WithdrawalQueue WithdrawalQueueFields `yaml:"withdrawal_queue"`
}

// WithdrawalQueueFields names the members of the withdrawal-queue answer:
// its list of requests, and each request's id, wallet, amounts, cancelled
// flag and creation time.
type WithdrawalQueueFields struct {
	Requests    string `yaml:"requests"`
	RequestID   string `yaml:"request_id"`
	Wallet      string `yaml:"wallet"`
	Requested   string `yaml:"requested"`
	Filled      string `yaml:"filled"`
	Claimed     string `yaml:"claimed"`
	Cancelled   string `yaml:"cancelled"`
	CreatedTime string `yaml:"created_time"`
}

// RateLimit is a client-side token bucket: RPS requests per second on
// average, bursts of up to Burst.
type RateLimit struct {
	RPS   float64 `yaml:"rps"`
	Burst int     `yaml:"burst"`
}

// Retry bounds the retries of retryable failures: at most Attempts tries in
// all, with exponential backoff from Base up to Max, plus jitter.
type Retry struct {
	Attempts int           `yaml:"attempts"`
	Base     time.Duration `yaml:"base"`
	Max      time.Duration `yaml:"max"`
}

// Chain configures Solana RPC and the Jito block engine.
type Chain struct {
	RPCURL  URL   `yaml:"rpc_url"`
	RPCURLs []URL `yaml:"rpc_urls"` // further endpoints, tried in order on failure
	SendURL URL   `yaml:"send_url"` // optional separate endpoint for sendTransaction
	// SimulateBundleURL is a Jito-Solana RPC endpoint with simulateBundle,
	// used to simulate an answer's transactions in order; empty: rpc_url.
	SimulateBundleURL URL  `yaml:"simulate_bundle_url"`
	JitoURL           URL  `yaml:"jito_url"`
	JitoAuth          Auth `yaml:"jito_auth"`
	// TipFloorURL is where the landed-tip percentiles are read (Jito's
	// tip-floor API shape); empty derives it from jito_url
	// (chain.TipFloorURLFor).
	TipFloorURL URL `yaml:"tip_floor_url"`
	// JitoRPS is the block engine's limit on keeper's requests per second
	// (Jito's default is one per IP and region).
	JitoRPS    float64       `yaml:"jito_rps"`
	Commitment string        `yaml:"commitment"` // confirmed or finalized
	Timeout    time.Duration `yaml:"timeout"`
	RateLimit  RateLimit     `yaml:"rate_limit"`
	// Retry bounds how often a call that failed transiently on every
	// endpoint is tried again (Attempts counts rounds over the endpoints).
	Retry Retry `yaml:"retry"`
	Tip   Tip   `yaml:"tip"`
	// Priority sets how keeper prices its transactions from the fee market.
	Priority Priority `yaml:"priority"`
	// Rebroadcast is how often an unconfirmed transaction is sent again,
	// and Poll how often at most its status is asked (the first polls come
	// sooner, backing off up to Poll).
	Rebroadcast time.Duration `yaml:"rebroadcast"`
	Poll        time.Duration `yaml:"poll"`
	// Confirm is how keeper learns that a sent transaction is confirmed:
	// "websocket" (default) subscribes to its signature on WSURL and polls
	// besides; "poll" polls alone.
	Confirm string `yaml:"confirm"`
	// WSURL is the RPC's websocket endpoint; empty derives it from rpc_url
	// (ws:// for http://, wss:// for https://).
	WSURL URL `yaml:"ws_url"`
	// WatchPoll is how often the accounts of the policies' triggers are
	// read while the websocket does not serve their subscriptions.
	WatchPoll time.Duration `yaml:"watch_poll"`
	// DexAProgram and DexBProgram are the CLMM programs whose pool and
	// position accounts keeper reads and whose instructions it allows.
	DexAProgram string `yaml:"dex_a_program"`
	DexBProgram string `yaml:"dex_b_program"`
}

// Tip sets the Jito tip: start at FloorLamports, raise after each dropped
// bundle, never above MaxLamports (a policy may set a lower cap). Fallback
// says what to do when a bundle cannot carry keeper's tip transaction or
// keeps being dropped: "rpc" sends the transactions one by one through RPC,
// "refuse" fails the action.
type Tip struct {
	FloorLamports uint64 `yaml:"floor_lamports"`
	MaxLamports   uint64 `yaml:"max_lamports"`
	Fallback      string `yaml:"fallback"`
	// Accounts are the block engine's tip accounts (base58), when the
	// operator pins them; empty: keeper asks the engine once per process.
	Accounts []string `yaml:"accounts"`
}

// Priority sets keeper's priority pricing: the compute-unit limit from the
// simulated units plus UnitMarginPercent, the compute-unit price from
// getRecentPrioritizationFees (a policy's submit.priority_percentile), raised
// by RaisePercent on each new attempt, never above
// signer.max_compute_unit_price. Off keeps the market's compute budget as
// built (keeper's behaviour before it priced).
type Priority struct {
	Off               bool   `yaml:"off"`
	UnitMarginPercent uint64 `yaml:"unit_margin_percent"`
	RaisePercent      uint64 `yaml:"raise_percent"`
}

// Signer configures the operator's key and the transaction guard.
type Signer struct {
	// Keypair is a Solana CLI keypair file. SecretEnv names an environment
	// variable and SecretFile a file holding a base58 secret key instead.
	Keypair    string `yaml:"keypair"`
	SecretEnv  string `yaml:"secret_env"`
	SecretFile string `yaml:"secret_file"`
	// PublicKey is the wallet's public key (base58). Alone, it is enough
	// for the commands that only read (plan, wallet, history, check); with
	// a key, it must be that key's public half.
	PublicKey string `yaml:"pubkey"`
	// MinLamports is the SOL balance below which `keeper check --online`
	// fails: fees, rent and tips need SOL.
	MinLamports uint64 `yaml:"min_lamports"`
	// AllowInsecurePermissions accepts a key file readable by others.
	AllowInsecurePermissions bool `yaml:"allow_insecure_permissions"`
	// AllowMarketFeePayer lets the market's transactions name another fee payer.
	AllowMarketFeePayer bool `yaml:"allow_market_fee_payer"`
	// MaxComputeUnitPrice caps the priority fee, in micro-lamports per unit.
	MaxComputeUnitPrice uint64 `yaml:"max_compute_unit_price"`
	// ExtraPrograms adds program ids to the allowlist of an action kind.
	ExtraPrograms map[string][]string `yaml:"extra_programs"`
	// PKCS11 keeps the key in a PKCS#11 token (an HSM) instead of a file:
	// the token makes every signature. Nil when not configured.
	PKCS11 *PKCS11 `yaml:"pkcs11,omitempty"`
}

// HasKey reports whether a key source is configured (a keypair file, a
// secret, or a PKCS#11 token), not only a public key.
func (s *Signer) HasKey() bool {
	return s.Keypair != "" || s.SecretEnv != "" || s.SecretFile != "" || s.PKCS11 != nil
}

// PKCS11 names an Ed25519 key in a PKCS#11 token (docs/hardware-keys.md).
type PKCS11 struct {
	// Module is the token's PKCS#11 library (.so).
	Module string `yaml:"module"`
	// TokenLabel or Slot picks the token: exactly one is set.
	TokenLabel string `yaml:"token_label"`
	Slot       *uint  `yaml:"slot"`
	// KeyLabel (CKA_LABEL) and KeyID (CKA_ID, hex) pick the key: at least
	// one is set.
	KeyLabel string `yaml:"key_label"`
	KeyID    string `yaml:"key_id"`
	// PIN is the user PIN, written only as ${ENV}; PINFile a file holding
	// it. Exactly one is set.
	PIN     Secret `yaml:"pin"`
	PINFile string `yaml:"pin_file"`
	// Timeout bounds each call to the token.
	Timeout time.Duration `yaml:"timeout"`
}

// Journal configures the durable action journal.
type Journal struct {
	// DSN is sqlite:PATH (relative paths resolve against the config's
	// folder), or postgres://USER@HOST/DATABASE for keepers that run as an
	// HA pair on one PostgreSQL journal (its password prints redacted).
	DSN DSN `yaml:"dsn"`
	// Lease is how long a leader's term lasts without renewal on a shared
	// (PostgreSQL) journal: a standby takes over at most about Lease plus a
	// third of it after the leader stops renewing. Ignored for SQLite.
	Lease time.Duration `yaml:"lease"`
	// Retention is how long actions that reached a final state stay in the journal; 0 keeps them
	// all. Unsettled and expired actions are never pruned.
	Retention time.Duration `yaml:"retention"`
}

// HTTP configures the operations endpoint (/metrics, /healthz, /readyz, /status).
type HTTP struct {
	Listen string `yaml:"listen"` // host:port; empty disables it
}

// Notifier is one destination for notifications.
type Notifier struct {
	Name string `yaml:"name"`
	// Type is webhook (generic JSON), slack, discord, telegram or pagerduty.
	Type    string `yaml:"type"`
	URL     URL    `yaml:"url"`
	URLFile string `yaml:"url_file"`
	// ChatID is the Telegram chat a telegram notifier posts to.
	ChatID string `yaml:"chat_id"`
	// RoutingKey is a pagerduty notifier's Events API v2 integration key.
	RoutingKey     Secret `yaml:"routing_key"`
	RoutingKeyFile string `yaml:"routing_key_file"`
	// SigningSecret, when set, signs every post of a webhook notifier
	// with an HMAC-SHA256 header (notify.SignatureHeader).
	SigningSecret     Secret `yaml:"signing_secret"`
	SigningSecretFile string `yaml:"signing_secret_file"`
	// From, To, Username and Password are an email notifier's sender,
	// recipients and SMTP login (url: smtp://host:587 or smtps://host:465).
	From         string        `yaml:"from"`
	To           []string      `yaml:"to"`
	Username     string        `yaml:"username"`
	Password     Secret        `yaml:"password"`
	PasswordFile string        `yaml:"password_file"`
	Timeout      time.Duration `yaml:"timeout"`
	Retries      int           `yaml:"retries"`
	// DedupWindow suppresses a repeat of the same message for the same
	// policy and target within the window.
	DedupWindow time.Duration `yaml:"dedup_window"`
}

// Log sets the daemon's log level (debug, info, warn, error) and format
// (auto: coloured text on a terminal, JSON otherwise; text; json).
type Log struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// Prices configures the USD prices keeper values rewards with: a Pyth feed
// read from chain, or a static price, per mint. A mint with neither has no
// price, and every fact that needs it is unknown.
type Prices struct {
	// MaxAge bounds how long ago a Pyth price was published.
	MaxAge time.Duration `yaml:"max_age"`
	// MaxConfidence bounds a Pyth price's confidence interval as a
	// fraction of the price.
	MaxConfidence float64 `yaml:"max_confidence"`
	// Feeds are the sources, by base58 mint.
	Feeds map[string]PriceFeed `yaml:"feeds"`
}

// PriceFeed is the source of one mint's price: Pyth (a feed id, read from
// its sponsored shard-0 account unless Account names another price update
// account) or USD, a static price.
type PriceFeed struct {
	Pyth    string  `yaml:"pyth"`
	Account string  `yaml:"account"`
	USD     float64 `yaml:"usd"`
}

// Token is what keeper shows of one mint.
type Token struct {
	Symbol   string `yaml:"symbol"`
	Decimals uint8  `yaml:"decimals"`
}

// Explorer names the block explorer links point at.
type Explorer struct {
	// Name is solscan, solana (explorer.solana.com), solanafm, or an
	// http(s) URL template with {signature} (and optionally {cluster});
	// default solscan, or solana for a custom cluster.
	Name string `yaml:"name"`
	// Cluster is mainnet-beta, devnet, testnet or custom (a cluster of
	// one's own: links carry chain.rpc_url's scheme and host, never its
	// path, query or user info); default from chain.rpc_url.
	Cluster string `yaml:"cluster"`
}

// Links returns the explorer that e and the RPC URL describe.
func (e Explorer) Links(rpc URL) (explorer.Explorer, error) {
	return explorer.New(e.Name, e.Cluster, linkableRPC(rpc.Reveal()))
}

// linkableRPC is the part of an RPC URL that may appear in a link: its
// scheme and host, as a keyed URL keeps its key in the path or query.
func linkableRPC(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// clusterOf guesses the cluster of an RPC URL: devnet or testnet when its
// host says so, custom for a loopback or private host, else mainnet-beta.
func clusterOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return explorer.Mainnet
	}
	host := u.Hostname()
	switch {
	case strings.Contains(host, "devnet"):
		return explorer.Devnet
	case strings.Contains(host, "testnet"):
		return explorer.Testnet
	case host == "localhost":
		return explorer.Custom
	}
	if ip := net.ParseIP(host); ip != nil && (ip.IsLoopback() || ip.IsPrivate()) {
		return explorer.Custom
	}
	return explorer.Mainnet
}
