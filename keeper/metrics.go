package keeper

import (
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/policies"
	"github.com/keeper-project/keeper/signer"
)

const namespace = "keeper"

// Metrics are keeper's Prometheus collectors. Label values are policy names,
// action kinds, outcomes, guard rules, endpoint and method names: never
// addresses, amounts or anything unbounded.
type Metrics struct {
	Runs                 *prometheus.CounterVec   // policy, outcome (ok, error, panic)
	RunDuration          *prometheus.HistogramVec // policy
	RunsSkipped          *prometheus.CounterVec   // policy, reason (overlap, stale_data)
	LastSuccess          *prometheus.GaugeVec     // policy
	Actions              *prometheus.CounterVec   // policy, kind, outcome
	GuardRefusals        *prometheus.CounterVec   // rule
	MarketRequests       *prometheus.HistogramVec // endpoint, code
	MarketErrors         *prometheus.CounterVec   // endpoint
	RPCRequests          *prometheus.HistogramVec // method
	RPCErrors            *prometheus.CounterVec   // method
	JournalPending       prometheus.Gauge
	JournalLag           prometheus.Gauge // age of the oldest unsettled action
	WalletLamports       prometheus.Gauge
	Paused               prometheus.Gauge
	Reloads              *prometheus.CounterVec // outcome
	Notifications        *prometheus.CounterVec // notifier, outcome
	PoliciesLoaded       prometheus.Gauge
	IdempotencyConflicts prometheus.Counter     // HTTP 409 from a build: the key taken for another request
	PriceAboveCap        *prometheus.CounterVec // policy: times keeper declined to pay a fee market above its cap
	PricesUnknown        *prometheus.CounterVec // reason (no_source, stale, uncertain, unverified, bad_account, read, no_decimals)
	// PolicyInterval is each scheduled policy's interval between two
	// ticks, so one alert rule can ask for a success within N intervals.
	PolicyInterval *prometheus.GaugeVec // policy
	// TriggerFirings counts the triggers that fired a run, by policy and
	// trigger type (price, account, pool, slot).
	TriggerFirings *prometheus.CounterVec
	// WatchPolling is 1 while the chain watcher of the triggers polls
	// because its websocket subscriptions do not serve, else 0.
	WatchPolling prometheus.Gauge
	// WebsocketOversized counts the websocket messages over the cap (the
	// notification of the largest account Solana allows) that dropped a
	// connection, of the triggers' watcher or of confirmations.
	WebsocketOversized prometheus.CounterFunc
	// Leader is 1 while this keeper leads (acts), 0 while it stands by.
	Leader prometheus.Gauge
	// LeaderTerms counts the terms this keeper won on a shared journal.
	LeaderTerms prometheus.Counter
	// JournalCommits times the journal's committed write transactions, by
	// durability (durable, lazy): on a file, what the disk's flush costs.
	JournalCommits *prometheus.HistogramVec
}

// NewMetrics creates keeper's collectors and registers them with reg when it
// is not nil.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Runs:                 counterVec("policy_runs_total", "Policy runs by outcome.", "policy", "outcome"),
		RunDuration:          histogramVec("policy_run_duration_seconds", "Time from tick to the end of a policy run, actions included.", prometheus.ExponentialBuckets(0.01, 2, 14), "policy"),
		RunsSkipped:          counterVec("policy_runs_skipped_total", "Policy ticks not run as scheduled, by reason: overlap (the previous run still ran), late (fired more than 2 s after its slot), missed (slots that passed without a tick), stale_data.", "policy", "reason"),
		LastSuccess:          gaugeVec("policy_last_success_timestamp_seconds", "Unix time of the policy's last run that ended without error.", "policy"),
		Actions:              counterVec("actions_total", "Ends of the action path by kind and outcome (landed, failed, refused, retry, expired, pending, settled, busy, already_done, superseded, dry_run, paused, not_taken, alert; proposed, then rejected or cancelled, for a Squads proposal).", "policy", "kind", "outcome"),
		PricesUnknown:        counterVec("prices_unknown_total", "Prices a run needed and could not use, by reason; the facts that needed them were unknown.", "reason"),
		GuardRefusals:        counterVec("guard_refusals_total", "Transactions the guard refused to sign, by rule.", "rule"),
		MarketRequests:       histogramVec("market_request_duration_seconds", "Market API request durations by endpoint and HTTP status.", prometheus.DefBuckets, "endpoint", "code"),
		MarketErrors:         counterVec("market_request_errors_total", "Failed market API requests by endpoint.", "endpoint"),
		RPCRequests:          histogramVec("rpc_request_duration_seconds", "Solana RPC and Jito request durations by method.", prometheus.DefBuckets, "method"),
		RPCErrors:            counterVec("rpc_request_errors_total", "Failed Solana RPC and Jito requests by method.", "method"),
		JournalPending:       gauge("journal_pending_actions", "Journaled actions that are not final yet."),
		JournalLag:           gauge("journal_lag_seconds", "Age of the oldest journaled action that is not final yet (0 when none)."),
		WalletLamports:       gauge("wallet_balance_lamports", "SOL balance of the signing wallet."),
		Paused:               gauge("paused", "1 while the kill switch file exists and nothing is signed."),
		Reloads:              counterVec("reloads_total", "Config and policy reloads by outcome.", "outcome"),
		Notifications:        counterVec("notifications_total", "Notification deliveries by notifier and outcome.", "notifier", "outcome"),
		PoliciesLoaded:       gauge("policies_loaded", "Enabled policies currently scheduled."),
		IdempotencyConflicts: counter("idempotency_conflicts_total", "HTTP 409 answers to builds: the market took an attempt's idempotency key for another request; the attempt is rebuilt under a new key."),
		PriceAboveCap:        counterVec("price_above_cap_total", "Times keeper declined to act because the fee market's price (or the Jito tip floor) was above the cap that applies: an action ended, or an approved proposal's execution put off (counted on each pass while the price stays above the cap); nothing was overpaid. Alert on any increase.", "policy"),
		PolicyInterval:       gaugeVec("policy_interval_seconds", "Seconds between two ticks of the policy's schedule (the next two, for a cron expression).", "policy"),
		TriggerFirings:       counterVec("trigger_firings_total", "Triggers that fired a run of their policy, by trigger type (price, account, pool, slot).", "policy", "trigger"),
		WatchPolling:         gauge("watch_polling", "1 while the chain watcher of the policies' triggers polls (chain.watch_poll) because its websocket subscriptions do not serve; 0 while they serve or nothing is watched."),
		WebsocketOversized: prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: namespace, Name: "websocket_oversized_messages_total",
			Help: "Websocket messages over the cap (the notification of a 10 MiB account, the largest Solana allows) that dropped their connection; its subscriptions resubscribe."},
			func() float64 { return float64(chain.OversizedMessages()) }),
		Leader:      gauge("leader", "1 while this keeper leads and may act; 0 while it stands by (a shared journal led by another keeper) or has not yet settled the journal."),
		LeaderTerms: counter("leader_terms_total", "Terms of leadership this keeper won on a shared (PostgreSQL) journal."),
		JournalCommits: histogramVec("journal_commit_duration_seconds", "Time the journal's committed write transactions took, flush included, by durability (durable: on disk when it returned; lazy: left to the next durable one).",
			prometheus.ExponentialBuckets(0.0001, 2, 16), "durability"),
	}
	for _, r := range guardRules {
		m.GuardRefusals.WithLabelValues(string(r))
	}
	if reg != nil {
		for _, c := range m.collectors() {
			reg.MustRegister(c)
		}
	}
	return m
}

// counterVec, histogramVec, gaugeVec, gauge and counter make keeper's
// collectors of each type: named in keeper's namespace, with their help and
// label names.
func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
}

func histogramVec(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: name, Help: help, Buckets: buckets}, labels)
}

func gaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: name, Help: help}, labels)
}

func gauge(name, help string) prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: name, Help: help})
}

func counter(name, help string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help})
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.Runs, m.RunDuration, m.RunsSkipped, m.LastSuccess, m.Actions, m.GuardRefusals,
		m.MarketRequests, m.MarketErrors, m.RPCRequests, m.RPCErrors, m.JournalPending, m.JournalLag,
		m.WalletLamports, m.Paused, m.Reloads, m.Notifications, m.PoliciesLoaded, m.IdempotencyConflicts, m.PricesUnknown, m.PriceAboveCap,
		m.PolicyInterval, m.TriggerFirings, m.WatchPolling, m.WebsocketOversized, m.Leader, m.LeaderTerms, m.JournalCommits}
}

// journalCommitted returns the journal's Options.Committed that feeds
// JournalCommits.
func journalCommitted(m *Metrics) func(journal.Commit) {
	return func(c journal.Commit) {
		d := "lazy"
		if c.Durable {
			d = "durable"
		}
		m.JournalCommits.WithLabelValues(d).Observe(c.Duration.Seconds())
	}
}

// guardRules are the rules keeper_guard_refusals_total counts by: the
// guard's, and the action path's own refusals of what cannot be signed.
// Each is exported at 0 from the start, so that increase() sees the first
// refusal (a counter that appears at 1 has no increase to see).
var guardRules = []signer.Rule{
	signer.RuleUnknownSigner, signer.RuleBadSignature, signer.RuleUnknownKind, signer.RuleNotASigner,
	signer.RuleFeePayer, signer.RuleMissingSignature, signer.RuleUnknownCoSigner, signer.RuleDurableNonce,
	signer.RuleProgramNotAllowed, signer.RuleSystemInstruction, signer.RuleSOLTransfer, signer.RuleLookupAccount,
	signer.RuleTokenOutflow, signer.RuleSetAuthority, signer.RuleCloseAccount, signer.RuleTokenInstruction,
	signer.RuleComputeBudget, signer.RuleComputeUnitPrice, signer.RuleTipShape, signer.RuleTipBound,
	signer.RuleLamportsBound, signer.RuleTokenBound, signer.RuleSimulatedLamports, signer.RuleSimulatedTokens,
	signer.RuleSimulatedSpendFailed, signer.RuleStrandedWallet, signer.RuleDuplicateTransaction,
	signer.Rule(journal.RuleMalformedTransaction), signer.Rule(journal.RuleSignError),
}

// knownOutcomes are the outcomes of keeper_actions_total exported at 0
// for every scheduled policy: landed, and those the shipped alert
// KeeperActionsFailing watches (an alert policy's own is alert).
var knownOutcomes = []action.Outcome{action.OutcomeLanded, action.OutcomeFailed, action.OutcomeRefused, action.OutcomeNotTaken}

// knowPolicy exports the policy's action counters at 0, so that its first
// failure is an increase from 0 that the alerts see.
func (m *Metrics) knowPolicy(name string, kind policies.Kind) {
	if kind == policies.KindAlert {
		m.Actions.WithLabelValues(name, string(kind), string(action.OutcomeAlert))
		return
	}
	for _, o := range knownOutcomes {
		m.Actions.WithLabelValues(name, string(kind), string(o))
	}
	if kind.Writes() {
		m.PriceAboveCap.WithLabelValues(name)
	}
}

// forgetPolicy deletes a removed policy's label values so its series stop.
func (m *Metrics) forgetPolicy(name string) {
	for _, v := range []interface {
		DeletePartialMatch(prometheus.Labels) int
	}{m.Runs, m.RunDuration, m.RunsSkipped, m.LastSuccess, m.Actions, m.PolicyInterval, m.TriggerFirings, m.PriceAboveCap} {
		v.DeletePartialMatch(prometheus.Labels{"policy": name})
	}
}

// registerProcess adds to reg what every Go service exports: the Go
// runtime's and the process's collectors, and keeper_build_info.
func registerProcess(reg prometheus.Registerer, version string) {
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	build := gaugeVec("build_info", "Always 1; the labels say which keeper runs.", "version", "revision", "goversion")
	build.WithLabelValues(version, Revision(), runtime.Version()).Set(1)
	reg.MustRegister(build)
}

// Revision is the VCS revision the binary was built from ("unknown"
// without build info), "+dirty" when the tree had changes.
func Revision() string {
	rev, dirty := "unknown", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if dirty {
		rev += "+dirty"
	}
	return rev
}
