package config

import (
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

// DefaultPolicyConcurrency is how many policies run at once unless the
// config says otherwise.
const DefaultPolicyConcurrency = 4

// DefaultActionConcurrency is how many actions of one policy run are on
// their way at once unless the config says otherwise: a run's builds (one
// or two per action) stay within the default market rate limit's burst,
// with room for the other policies' reads (docs/configuration.md).
const DefaultActionConcurrency = 4

// DefaultPageSize is how many loans a page of a loans walk asks for
// unless the config says otherwise (docs/assumptions.md, M-14).
const DefaultPageSize = 500

// DefaultPagesInFlight is how many pages of a loans walk are requested at
// once unless the config says otherwise: enough to keep the default rate
// limit busy while answers of a few hundred milliseconds travel.
const DefaultPagesInFlight = 4

// Default returns the settings used for every key a config file omits.
func Default() Config {
	return Config{
		Swap: Swap{Timeout: defaultSwapTimeout, Layout: market.DefaultCollateralRepayLayout()},
		Market: Market{
			BaseURL:      "http://127.0.0.1:7070/v1",
			Timeout:      10 * time.Second,
			WalletHeader: "user-wallet",
			PayerHeader:  "payer",
			Paths: Paths{
				DexA:                "dex-a",
				DexB:                "dex-b",
				Gateway:             "gateway",
				Provider:            "provider-a",
				EarnPosition:        "earn/vaults/position",
				EarnWithdrawalQueue: "earn/vaults/withdraw_queue",
				EarnWithdrawRequest: "earn/vaults/withdraw_request/tx",
			},
			// The withdrawal queue's member names default as the client's do.
			Fields:         Fields{WithdrawalQueue: WithdrawalQueueFields(market.DefaultWithdrawalQueueFields())},
			RateLimit:      RateLimit{RPS: 10, Burst: 20},
			Retry:          Retry{Attempts: 4, Base: 200 * time.Millisecond, Max: 5 * time.Second},
			PageSize:       DefaultPageSize,
			PagesInFlight:  DefaultPagesInFlight,
			SetupPlacement: "first",
		},
		Chain: Chain{
			RPCURL:      "http://127.0.0.1:7071",
			JitoURL:     "http://127.0.0.1:7072",
			JitoRPS:     1,
			Commitment:  "confirmed",
			Timeout:     10 * time.Second,
			RateLimit:   RateLimit{RPS: 20, Burst: 40},
			Retry:       Retry{Attempts: 3, Base: 200 * time.Millisecond, Max: 2 * time.Second},
			Tip:         Tip{FloorLamports: 10_000, MaxLamports: 1_000_000, Fallback: "refuse"},
			Priority:    Priority{UnitMarginPercent: 10, RaisePercent: 25},
			Rebroadcast: 2 * time.Second,
			Poll:        time.Second,
			Confirm:     "websocket",
			WatchPoll:   2 * time.Second,
		},
		Signer: Signer{
			Keypair:             "~/.config/solana/id.json",
			MaxComputeUnitPrice: 1_000_000,
			MinLamports:         10_000_000,
		},
		Journal: Journal{DSN: "sqlite:keeper.db", Retention: DefaultRetention, Lease: DefaultLease},
		HTTP:    HTTP{Listen: "127.0.0.1:9464"},
		Log:     Log{Level: "info", Format: "auto"},
		Prices:  Prices{MaxAge: DefaultPriceMaxAge, MaxConfidence: DefaultPriceMaxConfidence},

		PolicyConcurrency: DefaultPolicyConcurrency,
		ActionConcurrency: DefaultActionConcurrency,
	}
}

// notifierDefaults fills the optional keys of one notifier.
func notifierDefaults(n *Notifier) {
	if n.Timeout == 0 {
		n.Timeout = 10 * time.Second
	}
	if n.Retries == 0 {
		n.Retries = 3
	}
	if n.DedupWindow == 0 {
		n.DedupWindow = time.Hour
	}
}

// DefaultLease is the leader's lease on a shared journal: a standby takes
// over within about 8 s of the leader's last renewal.
const DefaultLease = 6 * time.Second

// MinLease and MaxLease bound journal.lease: shorter leases lapse on an
// ordinary database hiccup, longer ones leave a dead leader's work undone.
const (
	MinLease = 2 * time.Second
	MaxLease = time.Minute
)

// DefaultRetention is how long final actions stay in the journal by default: 90 days.
const DefaultRetention = 90 * 24 * time.Hour

// MinRetention is the shortest retention allowed: longer than the day the daily caps count and any
// sensible cooldown, so pruning never changes a decision.
const MinRetention = 48 * time.Hour

// DefaultPriceMaxAge is the oldest Pyth price taken by default: Pyth's
// sponsored Solana feeds are updated at least every 60 s (their heartbeat),
// so a healthy quiet feed can be a minute old.
const DefaultPriceMaxAge = 2 * time.Minute

// DefaultPriceMaxConfidence is the widest confidence interval taken by
// default, as a fraction of the price. Pyth publishes no such limit; 2 %
// is keeper's choice.
const DefaultPriceMaxConfidence = 0.02

// maxPageSize and maxPagesInFlight bound market.page_size and
// market.pages_in_flight: a walk holds up to pages_in_flight pages of
// page_size loans (some 3 KB each when decoded), and a page's answer must
// fit the client's 32 MiB response bound.
const (
	maxPageSize      = 5_000
	maxPagesInFlight = 32
)
