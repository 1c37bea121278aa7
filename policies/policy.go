package policies

import (
	"slices"
	"time"

	"github.com/expr-lang/expr/vm"
	"github.com/robfig/cron/v3"
)

// Policy is one validated policy. Parse and LoadFiles return policies whose
// every field is checked and whose expressions are compiled; a Policy is
// read-only afterwards and safe for concurrent use. The YAML tags are the
// keys of a policy as written: its node is decoded straight into it (and
// its params into the kind's type), once.
type Policy struct {
	// Name is unique across all loaded files.
	Name string `yaml:"name"`
	// Kind is what the policy does.
	Kind Kind `yaml:"kind"`
	// File, Line and Column locate the policy in its file.
	File         string `yaml:"-"`
	Line, Column int    `yaml:"-"`
	// Schedule is the cron spec (5 fields or a descriptor such as @every 30s), in UTC.
	Schedule string `yaml:"schedule"`
	// Triggers start runs outside the schedule when the chain changes.
	Triggers Triggers `yaml:"triggers"`
	// Jitter is the most a run may be delayed after its slot; see JitterDelay.
	Jitter time.Duration `yaml:"jitter"`
	// Select names the targets; see Select.
	Select Select `yaml:"select"`
	// When is the source of the condition expression; empty for none.
	When string `yaml:"when"`
	// For is how long the condition must hold continuously before acting.
	For time.Duration `yaml:"for"`
	// MaxDataAge is the oldest snapshot the policy acts on.
	MaxDataAge time.Duration `yaml:"max_data_age"`
	// Limits bound how often and how much the policy acts.
	Limits Limits `yaml:"limits"`
	// Submit says how the policy's transactions land.
	Submit Submit `yaml:"submit"`
	// Notify says who hears about the policy's actions.
	Notify Notify `yaml:"notify"`
	// DryRun plans and journals actions but never signs them.
	DryRun bool `yaml:"dry_run"`
	// Enabled is false for a policy that is loaded and checked but never run.
	Enabled bool `yaml:"enabled"`
	// Authority is who holds the authority the actions need: keeper's key,
	// or a Squads multisig keeper proposes to (see Authority).
	Authority Authority `yaml:"authority"`
	// Params are the kind's parameters: *RepayParams, *RebalanceParams,
	// *ClaimFeesParams, *ClaimWithdrawalsParams, *StrategyUpdateParams,
	// *StrategyWithdrawParams or *AlertParams.
	Params Params `yaml:"-"`

	checked bool // built and checked by Parse
	cron    cron.Schedule
	when    *vm.Program // nil when When is empty
	// whenReads are the facts that may be unknown (mayBeUnknown) that
	// `when` reads, found once when it compiles.
	whenReads map[string]bool
	// whenFacts are the facts `when` reads (group and name), for what a
	// resolution says (Cleared.Value).
	whenFacts [][2]string
	notifyPos []position // positions of Notify.To entries
	warnings  Errors     // what is accepted but cannot work as written
}

// Warnings are what the policy accepts but cannot work as written, each at
// its position: a schedule that never fires, a daily cap only on mints the
// policy never spends. `keeper check` prints them.
func (p *Policy) Warnings() Errors { return p.warnings }

// Params are a kind's parameters.
type Params interface {
	// Kind returns the kind the parameters belong to.
	Kind() Kind
}

// position is a place in a file.
type position struct{ line, col int }

// Cron returns the parsed schedule.
func (p *Policy) Cron() cron.Schedule { return p.cron }

// Target returns the type of the policy's targets.
func (p *Policy) Target() Target {
	if p.Kind == KindAlert {
		return p.Select.Target
	}
	return p.Kind.target()
}

// JitterDelay returns the delay to apply after each scheduled slot: a
// deterministic fraction of Jitter derived from the policy name (FNV-1a), so
// runs of different policies spread out yet stay at the same offset across
// restarts. It is zero when Jitter is zero.
func (p *Policy) JitterDelay() time.Duration {
	if p.Jitter <= 0 {
		return 0
	}
	h := uint64(14695981039346656037)
	for i := 0; i < len(p.Name); i++ {
		h ^= uint64(p.Name[i])
		h *= 1099511628211
	}
	return time.Duration(h % uint64(p.Jitter))
}

// Select names a policy's targets. Filters of different fields combine with
// AND; the values of one field with OR. A target is selected when it passes
// every filter that is set. Filters the market API has are also pushed to it
// (see LoansQuery).
type Select struct {
	// Target is the target type of an alert: loans, positions, withdrawals
	// or vaults. Other kinds have a fixed target type and must leave it empty.
	Target Target `yaml:"target"`
	// Loans are loan addresses.
	Loans []string `yaml:"loans"`
	// Borrowers are borrower wallets; empty means the signer's own wallet.
	Borrowers []string `yaml:"borrowers"`
	// PrincipalMints keep loans with a ledger in one of these mints.
	PrincipalMints []string `yaml:"principal_mints"`
	// CollateralMints keep loans with a collateral entry of one of these asset mints.
	CollateralMints []string `yaml:"collateral_mints"`
	// CollateralIdentifiers keep loans with a collateral entry of one of
	// these asset identifiers (a pool id for CLMM collateral).
	CollateralIdentifiers []string `yaml:"collateral_identifiers"`
	// ExcludePrincipalMints drop loans with a ledger in one of these mints.
	ExcludePrincipalMints []string `yaml:"exclude_principal_mints"`
	// ExcludeCollateral drops loans with a collateral entry whose asset
	// mint or asset identifier is one of these: token mints, or the pool
	// ids of LP/CLMM collateral (whose identifier is the pool, not a mint).
	// Each is sent to the market as both an excluded collateral mint and an
	// excluded collateral identifier, as the market requires for pools.
	ExcludeCollateral []string `yaml:"exclude_collateral"`
	// Positions are CLMM position mints.
	Positions []string `yaml:"positions"`
	// Vaults are lending vault addresses, or earn vault addresses for
	// withdrawals (required there: no listing of earn vaults exists).
	Vaults []string `yaml:"vaults"`
}

// Limits bound how often and how much a policy acts.
type Limits struct {
	// MaxActionsPerRun caps the actions one run plans (default 5).
	MaxActionsPerRun int `yaml:"max_actions_per_run"`
	// Cooldown is the least time between two actions on one target
	// (default 10m; 0 turns it off).
	Cooldown time.Duration `yaml:"cooldown"`
	// DailyCaps caps, per mint, the token outflow of the policy's actions in
	// one UTC day: the mint's smallest units, or whole tokens with its
	// symbol.
	DailyCaps map[string]Amount `yaml:"daily_caps"`
	// DailyFeeLamports caps the lamports spent on fees and tips in one UTC
	// day (0: no cap).
	DailyFeeLamports uint64 `yaml:"daily_fee_lamports"`
}

// SubmitMode is how transactions land.
type SubmitMode string

// The submit modes.
const (
	// ModeRPC sends each transaction through RPC, in order.
	ModeRPC SubmitMode = "rpc"
	// ModeBundle sends the transactions as one Jito bundle with keeper's tip.
	ModeBundle SubmitMode = "bundle"
	// ModeAuto lets keeper choose per action: a repay priced through its
	// build request by RPC, an answer keeper cannot price on contested
	// accounts as a Jito bundle tipped from the tip floor, and anything
	// else by RPC as built.
	ModeAuto SubmitMode = "auto"
)

// Submit says how a policy's transactions land and what they may cost.
type Submit struct {
	// Mode is auto, rpc or bundle; default auto, bundle for
	// claim-withdrawals.
	Mode SubmitMode `yaml:"mode"`
	// PriorityPercentile is the percentile of the recent blocks'
	// compute-unit prices keeper bids (default 75).
	PriorityPercentile int `yaml:"priority_percentile"`
	// TipPercentile is the percentile of the recently landed Jito tips a
	// bundle keeper routes tips (default 75; 25, 50, 75, 95 or 99 as the
	// tip floor publishes them, a value between rounding up).
	TipPercentile int `yaml:"tip_percentile"`
	// TipLamports caps the Jito tip of a bundle (0: the config's
	// chain.tip.max_lamports). Bundle mode only.
	TipLamports uint64 `yaml:"tip_lamports"`
	// MaxComputeUnitPrice refuses transactions whose priority fee exceeds
	// this many micro-lamports per compute unit (0: the config's signer cap).
	MaxComputeUnitPrice uint64 `yaml:"max_compute_unit_price"`
	// MaxFeeLamports bounds the fees (base and priority) of one action's
	// transactions (default 100000).
	MaxFeeLamports uint64 `yaml:"max_fee_lamports"`
	// MaxRentLamports bounds the rent one action may lock in new accounts
	// (default by kind: rebalance 15000000, claim-fees 4100000,
	// claim-withdrawals 2100000, others 0).
	MaxRentLamports uint64 `yaml:"max_rent_lamports"`
}

// Event is a moment a policy's notifiers hear about.
type Event string

// The notification events.
const (
	// EventLanded fires when an action's transactions landed.
	EventLanded Event = "landed"
	// EventFailed fires when an action failed.
	EventFailed Event = "failed"
	// EventRefused fires when the guard refused to sign an action.
	EventRefused Event = "refused"
	// EventAlert fires when an alert policy's condition holds.
	EventAlert Event = "alert"
)

var events = []Event{EventLanded, EventFailed, EventRefused, EventAlert}

// Notify names the notifiers (from the config's notifiers) that hear about
// the policy's actions, and on which events.
type Notify struct {
	// To lists notifier names.
	To []string `yaml:"to"`
	// On lists events; default [failed, refused], or [alert] for alerts.
	On []Event `yaml:"on"`
}

// Has reports whether the policy notifies on e.
func (n Notify) Has(e Event) bool { return slices.Contains(n.On, e) }

// Kind is what a policy does.
type Kind string

// The policy kinds.
const (
	// KindRepay repays part of a loan when its health falls (E2 build, repay step).
	KindRepay Kind = "repay"
	// KindRebalance moves a dex-a CLMM collateral position to a new tick range (E4).
	KindRebalance Kind = "rebalance"
	// KindClaimFees claims the fees of a dex-b CLMM collateral position (E8).
	KindClaimFees Kind = "claim-fees"
	// KindClaimWithdrawals claims fully filled earn withdrawal requests (E10).
	KindClaimWithdrawals Kind = "claim-withdrawals"
	// KindStrategyUpdate keeps a strategy's collateral terms where its rules say (E1).
	KindStrategyUpdate Kind = "strategy-update"
	// KindStrategyWithdraw sweeps a strategy's idle principal above a buffer (E9).
	KindStrategyWithdraw Kind = "strategy-withdraw"
	// KindAlert sends a notification and builds no transaction.
	KindAlert Kind = "alert"
)

// Kinds lists every kind, in documentation order.
var Kinds = []Kind{KindRepay, KindRebalance, KindClaimFees, KindClaimWithdrawals, KindStrategyUpdate, KindStrategyWithdraw, KindAlert}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool { return slices.Contains(Kinds, k) }

// Writes reports whether the kind builds transactions (every kind but alert).
func (k Kind) Writes() bool { return k != KindAlert }

// Target names what a policy evaluates one by one.
type Target string

// The target types.
const (
	// TargetLoans are loans; the target key is the loan address.
	TargetLoans Target = "loans"
	// TargetPositions are CLMM collateral positions; the key is the position mint.
	TargetPositions Target = "positions"
	// TargetWithdrawals are earn withdrawal requests; the key is the request id.
	TargetWithdrawals Target = "withdrawals"
	// TargetVaults are lending vaults; the key is the vault address.
	TargetVaults Target = "vaults"
)

// targets lists the target types an alert may select.
var targets = []Target{TargetLoans, TargetPositions, TargetWithdrawals, TargetVaults}

// target returns the target type of a kind; an alert names its own.
func (k Kind) target() Target {
	switch k {
	case KindRepay:
		return TargetLoans
	case KindRebalance, KindClaimFees:
		return TargetPositions
	case KindClaimWithdrawals:
		return TargetWithdrawals
	case KindStrategyUpdate, KindStrategyWithdraw:
		return TargetVaults
	}
	return ""
}

// Route says how an action of kind k with these submit settings lands and
// why, for plan: keeper decides the details per action, once it sees the
// market's answer and the fee market.
func (s Submit) Route(k Kind) string {
	switch {
	case s.Mode == ModeBundle:
		return "by Jito bundle, tipped from the tip floor"
	case k == KindRepay:
		return "by RPC, priced through the build (setupIxs) when its accounts are contested"
	case s.Mode == ModeAuto:
		return "by RPC as built; by Jito bundle tipped from the tip floor when its accounts are contested (the market co-signs it: keeper cannot price it)"
	}
	return "by RPC as built (the market co-signs it: keeper cannot price it)"
}
