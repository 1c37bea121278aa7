// Package action is keeper's action path: it takes a plan from a durable
// journal entry through a build by the market API (with the attempt's
// idempotency key), the transaction guard, simulation of the unsigned
// transactions, signing, submission and confirmation to a recorded outcome,
// and settles from the chain what a crash left unsettled. Nothing leaves
// the process before the intent is durable, and nothing signed by our key
// before its signature is durable.
package action

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/keeper-project/keeper/internal/failpoint"
	"github.com/keeper-project/keeper/keeper/explorer"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/notify"
)

// maxAttempts bounds the builds of one action; after that it fails and a
// person looks at it.
const maxAttempts = 5

// journalTimeout bounds a journal write made after the run's context ended:
// an outcome is recorded even when the run ran out of time.
const journalTimeout = 10 * time.Second

// Config is what an Executor works with. Every field but Notifier,
// Changed, Unsettled and Verify is required.
type Config struct {
	Builder   Builder
	Signer    Signer
	Submitter Submitter
	Journal   Log
	// Notifier hears of landed, failed and refused actions; nil: nobody.
	Notifier *notify.Dispatcher
	Metrics  Metrics
	Logger   *slog.Logger
	Now      func() time.Time
	// Commitment is the level at which a transaction counts as landed.
	Commitment rpc.CommitmentType
	// Poll is how often recovery asks the chain while it waits.
	Poll time.Duration
	Tip  TipConfig
	// Priority is how keeper prices its transactions; its zero value turns
	// pricing off.
	Priority PriorityConfig
	// KillSwitch is a file whose existence pauses every action; empty: none.
	KillSwitch string
	// Changed is called when an action may have changed its target, so the
	// reads taken before are dropped.
	Changed func()
	// Unsettled, if set, is called when an outcome could not be journaled,
	// so that the daemon sweeps its unsettled actions soon (see Sweep).
	Unsettled func()
	// Verify, if set, reads the target of a landed plan again and says
	// what changed ("health 0.081 → 0.300"), once the landing is
	// journaled; the action's detail, its log line and its notification
	// carry it.
	Verify func(ctx context.Context, p Plan) string
	// Collateral is what a repay from collateral needs (collateral.go).
	Collateral CollateralConfig
	// Links turns signatures into explorer links for logs and
	// notifications; the zero Explorer makes none.
	Links explorer.Explorer
	// Amount writes an amount of a mint for people ("412.5 USDC"); nil
	// writes base units.
	Amount func(mint string, units uint64) string
	// Proposals is proposal mode's configuration, for plans whose
	// authority is a Squads multisig.
	Proposals ProposalConfig
}

// TipConfig is the config's Jito tip settings.
type TipConfig struct {
	Floor, Max  uint64
	FallbackRPC bool
}

// Metrics are the collectors the action path counts in; keeper registers
// them.
type Metrics struct {
	Actions              *prometheus.CounterVec // policy, kind, outcome
	GuardRefusals        *prometheus.CounterVec // rule
	IdempotencyConflicts prometheus.Counter
	Paused               prometheus.Gauge
	// PriceAboveCap counts actions ended because the fee market or the tip
	// floor was above their cap (policy).
	PriceAboveCap *prometheus.CounterVec
}

// Executor takes plans along the action path. It is safe for concurrent
// use: plans of different targets run side by side, and one kind of work
// on one target runs one at a time.
type Executor struct {
	cfg    Config
	wallet solana.PublicKey
	claims *targetClaims
	// tracking keeps TrackProposals to one caller at a time: policy runs
	// call it side by side, and the second one skips.
	tracking sync.Mutex
	// proposalPricing holds each proposal-mode policy's proposalPrice, for
	// the executions of its proposals (proposal.go).
	proposalPricing sync.Map
}

// New returns an Executor working with c.
func New(c Config) *Executor {
	if c.Changed == nil {
		c.Changed = func() {}
	}
	if c.Amount == nil {
		c.Amount = func(mint string, units uint64) string { return fmt.Sprintf("%d units of %s", units, mint) }
	}
	return &Executor{cfg: c, wallet: c.Signer.PublicKey(), claims: newTargetClaims()}
}

// Result is what became of one plan: its outcome and the signatures of the
// transactions its last attempt signed (none when nothing was signed), with
// their explorer links.
type Result struct {
	Outcome    Outcome
	Signatures []string
	Links      []string
}

// Execute takes p along the action path (see execute) and says what became
// of it.
func (e *Executor) Execute(ctx context.Context, runID string, p Plan) Result {
	r := Result{Outcome: e.execute(ctx, runID, p)}
	switch r.Outcome {
	case OutcomeLanded, OutcomeFailed, OutcomePending, OutcomeRetry, OutcomeExpired:
		r.Signatures = journaledSignatures(ctx, e.cfg.Journal, p.ID)
		r.Links = e.cfg.Links.Txs(r.Signatures)
	}
	return r
}

// journaledSignatures reads the signatures of id's last signed attempt
// from the journal: what is durable is what may be on chain.
func journaledSignatures(ctx context.Context, j Log, id string) []string {
	act, err := j.Get(context.WithoutCancel(ctx), id)
	if err != nil {
		return nil
	}
	for i := len(act.Attempts) - 1; i >= 0; i-- {
		if sigs := act.Attempts[i].Signatures; len(sigs) > 0 {
			return signatureStrings(sigs)
		}
	}
	return nil
}

// execute takes p along the action path: journal the intent, build, guard,
// simulate unsigned, sign, journal the signatures, submit, confirm, record. A dry-run plan is
// journaled as skipped; nothing is done while the kill switch is on or
// while another action holds p's target.
func (e *Executor) execute(ctx context.Context, runID string, p Plan) Outcome {
	log := e.cfg.Logger.With("policy", p.Policy, "run", runID, "action", ShortID(p.ID), "kind", p.Kind, "target", p.Target)
	if p.DryRun {
		return e.dryRun(ctx, log, p)
	}
	if reason, paused := e.Paused(); paused {
		log.Warn("Not acting: keeper is paused", "reason", reason, "plan", p.Reason)
		return OutcomePaused
	}
	release, reason, ok := e.claims.claim(ctx, e.cfg.Journal, p, e.cfg.Now, e.cfg.Changed)
	if !ok {
		log.Info("Not acting: the target is another action's; the next run decides afresh", "reason", reason, "plan", p.Reason)
		e.Count(p, OutcomeBusy)
		return OutcomeBusy
	}
	out := e.take(ctx, log, p)
	release(out)
	return out
}

// take journals p's intent with its first attempt, or finds it journaled,
// and carries it on.
func (e *Executor) take(ctx context.Context, log *slog.Logger, p Plan) Outcome {
	if reason, pending := e.proposalPending(ctx, p); pending {
		log.Info("Not proposing: an earlier proposal for the target is open", "reason", reason, "plan", p.Reason)
		e.Count(p, OutcomeBusy)
		return OutcomeBusy
	}
	act, att, created, err := e.cfg.Journal.Start(ctx, p.intent())
	if err != nil {
		log.Error("Cannot journal the intent; not acting", "err", err)
		return OutcomeNotTaken
	}
	failpoint.Hit(failpoint.AfterIntent)
	pr := &pricing{}
	if created {
		if out := runOf(e, log, p, att, pr).run(ctx, 0); out != OutcomeExpired {
			return out
		}
		return e.attempts(ctx, log, p, 1, 0, pr)
	}
	out, done, first := e.resume(ctx, log, act)
	if done {
		return out
	}
	if act, err = e.cfg.Journal.Get(ctx, p.ID); err != nil {
		log.Error("Cannot read the journaled action", "err", err)
		return OutcomeNotTaken
	}
	return e.attempts(ctx, log, p, act.AttemptCount, first, pr)
}

// attempts builds and lands p, starting a new attempt after each proven
// expiry, up to maxAttempts in all. first is how many leading transactions
// of the answer earlier attempts landed (an RPC sequence stopped midway).
func (e *Executor) attempts(ctx context.Context, log *slog.Logger, p Plan, done, first int, pr *pricing) Outcome {
	for n := done; n < maxAttempts; n++ {
		if ctx.Err() != nil {
			return OutcomeRetry
		}
		att, err := e.cfg.Journal.NewAttempt(ctx, p.ID)
		if err != nil {
			log.Error("Cannot start an attempt", "err", err)
			return OutcomeNotTaken
		}
		if out := runOf(e, log, p, att, pr).run(ctx, first); out != OutcomeExpired {
			return out
		}
	}
	return e.finish(ctx, log, p, journal.Outcome{State: journal.StateFailed, Rule: journal.RuleMaxAttempts,
		Detail: fmt.Sprintf("%d attempts expired without landing", maxAttempts)})
}

// runOf returns e's run of p's journaled attempt att.
func runOf(e *Executor, log *slog.Logger, p Plan, att journal.Attempt, pr *pricing) *attempt {
	return &attempt{e: e, log: log.With("attempt", att.Number), p: p, att: att, pricing: pr}
}

// dryRun journals p as skipped under a dry-run ID (so turning dry run off
// later does not find the action already settled) and logs the plan.
func (e *Executor) dryRun(ctx context.Context, log *slog.Logger, p Plan) Outcome {
	p.ID = "dry-" + p.ID
	p.DryRun = true
	log.Info("Dry run: would act", "reason", p.Reason)
	if _, created, err := e.cfg.Journal.Begin(ctx, p.intent()); err != nil {
		log.Error("Cannot journal the dry-run plan", "err", err)
		return OutcomeDryRun
	} else if !created {
		return OutcomeDryRun
	}
	e.finish(ctx, log, p, journal.Outcome{State: journal.StateSkipped, Rule: journal.RuleDryRun})
	return OutcomeDryRun
}

// Paused reports whether the kill switch file exists, says why, and keeps
// the paused gauge current.
func (e *Executor) Paused() (string, bool) {
	if e.cfg.KillSwitch == "" {
		return "", false
	}
	if _, err := os.Stat(e.cfg.KillSwitch); err != nil {
		e.cfg.Metrics.Paused.Set(0)
		return "", false
	}
	e.cfg.Metrics.Paused.Set(1)
	return "kill switch " + e.cfg.KillSwitch + " exists", true
}

// finish records a final outcome for an action with no open attempt.
func (e *Executor) finish(ctx context.Context, log *slog.Logger, p Plan, out journal.Outcome) Outcome {
	failpoint.Hit(failpoint.BeforeOutcome)
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), journalTimeout)
	defer cancel()
	if err := e.cfg.Journal.Finish(wctx, p.ID, out); err != nil {
		return e.unjournaled(log, p, out, err)
	}
	return e.report(p, out, nil)
}

// checkLanded reads the target of landed plan p again (Config.Verify) and
// journals what it found as the action's detail; "" without a check. The
// read comes after the landing is journaled, so that it holds up nothing
// the chain waits on; a failure to journal it is logged.
func (e *Executor) checkLanded(ctx context.Context, log *slog.Logger, p Plan) string {
	if e.cfg.Verify == nil || len(p.Seen) == 0 {
		return ""
	}
	after := e.cfg.Verify(ctx, p)
	if after == "" {
		return ""
	}
	if err := e.cfg.Journal.RecordCheck(ctx, p.ID, after); err != nil {
		log.Warn("Cannot journal what the target shows after the landing", "after", after, "err", err)
	}
	return after
}

// unjournaled handles an outcome of p the journal did not take (its server
// restarted, its disk failed, or this keeper no longer leads): it is logged
// at ERROR with the action named (the logger carries it) and counted as
// pending, and Config.Unsettled is told, so that the daemon settles the
// action from the chain once the journal answers (see Sweep). Nothing is
// announced or notified: the settlement does that, once.
func (e *Executor) unjournaled(log *slog.Logger, p Plan, out journal.Outcome, err error) Outcome {
	if errors.Is(err, journal.ErrNotLeader) {
		log.Error("Cannot journal the outcome: this keeper no longer leads; the leader settles the action from the chain",
			"state", out.State, "err", err)
	} else {
		log.Error("Cannot journal the outcome; keeper settles the action from the chain once the journal answers",
			"state", out.State, "err", err)
	}
	e.Count(p, OutcomePending)
	if e.cfg.Unsettled != nil {
		e.cfg.Unsettled()
	}
	return OutcomePending
}

// report counts an outcome and sends the notifications it calls for, with
// the signatures of the transactions the attempt sent.
func (e *Executor) report(p Plan, out journal.Outcome, sigs []string) Outcome {
	o := outcomeOf(out.State, out.Rule)
	e.Count(p, o)
	ev := map[Outcome]notify.Event{OutcomeLanded: notify.Landed, OutcomeFailed: notify.Failed, OutcomeRefused: notify.Refused}[o]
	if ev != "" && e.cfg.Notifier != nil && p.wants(ev) {
		m := notify.Message{Event: ev, Policy: p.Policy, Kind: string(p.Kind), Target: p.Target,
			ActionID: p.ID, Reason: p.Reason, Detail: detail(out), To: p.Notify, Time: e.cfg.Now(),
			Signatures: sigs, Links: e.cfg.Links.Txs(sigs), FeeLamports: out.FeeLamports, TipLamports: out.TipLamports}
		if p.Mint != "" && p.Amount > 0 {
			m.Amount = e.cfg.Amount(p.Mint, p.Amount)
		}
		e.cfg.Notifier.Notify(m)
	}
	return o
}

// Count adds an outcome of p to the actions metric.
func (e *Executor) Count(p Plan, o Outcome) {
	e.cfg.Metrics.Actions.WithLabelValues(p.Policy, string(p.Kind), string(o)).Inc()
}

func detail(out journal.Outcome) string {
	switch {
	case out.Rule != "" && out.Detail != "":
		return string(out.Rule) + ": " + out.Detail
	case out.Rule != "":
		return string(out.Rule)
	}
	return out.Detail
}

// errTipNotJournaled marks a tip transaction that was signed but could not
// be journaled, so it was not handed to the chain.
var errTipNotJournaled = errors.New("tip transaction not journaled; not sending it")
