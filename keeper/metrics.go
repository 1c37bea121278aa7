package keeper

import (
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
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
	// Leader is 1 while this keeper leads (acts), 0 while it stands by.
	Leader prometheus.Gauge
	// LeaderTerms counts the terms this keeper won on a shared journal.
	LeaderTerms prometheus.Counter
}

// NewMetrics creates keeper's collectors and registers them with reg when it
// is not nil.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Runs: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "policy_runs_total",
			Help: "Policy runs by outcome."}, []string{"policy", "outcome"}),
		RunDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "policy_run_duration_seconds",
			Help: "Time from tick to the end of a policy run, actions included.", Buckets: prometheus.ExponentialBuckets(0.01, 2, 14)}, []string{"policy"}),
		RunsSkipped: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "policy_runs_skipped_total",
			Help: "Policy ticks not run as scheduled, by reason: overlap (the previous run still ran), late (fired more than 2 s after its slot), missed (slots that passed without a tick), stale_data."}, []string{"policy", "reason"}),
		LastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: "policy_last_success_timestamp_seconds",
			Help: "Unix time of the policy's last run that ended without error."}, []string{"policy"}),
		Actions: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "actions_total",
			Help: "Ends of the action path by kind and outcome (landed, failed, refused, retry, expired, pending, settled, busy, already_done, dry_run, paused, not_taken, alert)."}, []string{"policy", "kind", "outcome"}),
		PricesUnknown: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "prices_unknown_total",
			Help: "Prices a run needed and could not use, by reason; the facts that needed them were unknown."}, []string{"reason"}),
		GuardRefusals: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "guard_refusals_total",
			Help: "Transactions the guard refused to sign, by rule."}, []string{"rule"}),
		MarketRequests: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "market_request_duration_seconds",
			Help: "Market API request durations by endpoint and HTTP status.", Buckets: prometheus.DefBuckets}, []string{"endpoint", "code"}),
		MarketErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "market_request_errors_total",
			Help: "Failed market API requests by endpoint."}, []string{"endpoint"}),
		RPCRequests: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "rpc_request_duration_seconds",
			Help: "Solana RPC and Jito request durations by method.", Buckets: prometheus.DefBuckets}, []string{"method"}),
		RPCErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "rpc_request_errors_total",
			Help: "Failed Solana RPC and Jito requests by method."}, []string{"method"}),
		JournalPending: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: "journal_pending_actions",
			Help: "Journaled actions that are not final yet."}),
		JournalLag: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: "journal_lag_seconds",
			Help: "Age of the oldest journaled action that is not final yet (0 when none)."}),
		WalletLamports: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: "wallet_balance_lamports",
			Help: "SOL balance of the signing wallet."}),
		Paused: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: "paused",
			Help: "1 while the kill switch file exists and nothing is signed."}),
		Reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "reloads_total",
			Help: "Config and policy reloads by outcome."}, []string{"outcome"}),
		Notifications: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "notifications_total",
			Help: "Notification deliveries by notifier and outcome."}, []string{"notifier", "outcome"}),
		PoliciesLoaded: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: "policies_loaded",
			Help: "Enabled policies currently scheduled."}),
		IdempotencyConflicts: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "idempotency_conflicts_total",
			Help: "HTTP 409 answers to builds: the market took an attempt's idempotency key for another request; the attempt is rebuilt under a new key."}),
		PolicyInterval: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: "policy_interval_seconds",
			Help: "Seconds between two ticks of the policy's schedule (the next two, for a cron expression)."}, []string{"policy"}),
		TriggerFirings: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "trigger_firings_total",
			Help: "Triggers that fired a run of their policy, by trigger type (price, account, pool, slot)."}, []string{"policy", "trigger"}),
		WatchPolling: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: "watch_polling",
			Help: "1 while the chain watcher of the policies' triggers polls (chain.watch_poll) because its websocket subscriptions do not serve; 0 while they serve or nothing is watched."}),
		Leader: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: "leader",
			Help: "1 while this keeper leads and may act; 0 while it stands by (a shared journal led by another keeper) or has not yet settled the journal."}),
		LeaderTerms: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "leader_terms_total",
			Help: "Terms of leadership this keeper won on a shared (PostgreSQL) journal."}),
	}
	if reg != nil {
		for _, c := range m.collectors() {
			reg.MustRegister(c)
		}
	}
	return m
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.Runs, m.RunDuration, m.RunsSkipped, m.LastSuccess, m.Actions, m.GuardRefusals,
		m.MarketRequests, m.MarketErrors, m.RPCRequests, m.RPCErrors, m.JournalPending, m.JournalLag,
		m.WalletLamports, m.Paused, m.Reloads, m.Notifications, m.PoliciesLoaded, m.IdempotencyConflicts, m.PricesUnknown,
		m.PolicyInterval, m.TriggerFirings, m.WatchPolling, m.Leader, m.LeaderTerms}
}

// forgetPolicy deletes a removed policy's label values so its series stop.
func (m *Metrics) forgetPolicy(name string) {
	for _, v := range []interface {
		DeletePartialMatch(prometheus.Labels) int
	}{m.Runs, m.RunDuration, m.RunsSkipped, m.LastSuccess, m.Actions, m.PolicyInterval, m.TriggerFirings} {
		v.DeletePartialMatch(prometheus.Labels{"policy": name})
	}
}

// registerProcess adds to reg what every Go service exports: the Go
// runtime's and the process's collectors, and keeper_build_info.
func registerProcess(reg prometheus.Registerer, version string) {
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: "build_info",
		Help: "Always 1; the labels say which keeper runs."}, []string{"version", "revision", "goversion"})
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
