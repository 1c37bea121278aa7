package journal

import (
	"context"
	"database/sql"
	"time"
)

// schemaV8 keeps the Squads proposals keeper made: one row per vault
// transaction, keyed by its multisig and transaction index (the chain's
// key of the proposal), written before the transaction that creates it is
// sent.
var schemaV8 = []string{
	`CREATE TABLE squads_proposals (
		multisig    TEXT    NOT NULL,
		tx_index    BIGINT  NOT NULL,
		action_id   TEXT    NOT NULL,
		policy      TEXT    NOT NULL,
		target      TEXT    NOT NULL,
		message     TEXT    NOT NULL,
		state       TEXT    NOT NULL,
		approvers   TEXT    NOT NULL DEFAULT '',
		detail      TEXT    NOT NULL DEFAULT '',
		execute_sig TEXT    NOT NULL DEFAULT '',
		execute_tx  TEXT    NOT NULL DEFAULT '',
		created_at  BIGINT  NOT NULL,
		approved_at BIGINT,
		settled_at  BIGINT,
		PRIMARY KEY (multisig, tx_index)
	)`,
	`CREATE INDEX squads_proposals_open ON squads_proposals (settled_at, policy, target)`,
}

// ProposalState is where a Squads proposal keeper made stands.
type ProposalState string

// The proposal states. Proposing, proposed, approved and executing are
// open; the others are settled.
const (
	// ProposalProposing: the creating transaction is signed and journaled,
	// not yet seen on chain.
	ProposalProposing ProposalState = "proposing"
	// ProposalProposed: the proposal is on chain, waiting for votes.
	ProposalProposed ProposalState = "proposed"
	// ProposalApproved: the threshold approved it; keeper executes it once
	// the time lock passed.
	ProposalApproved ProposalState = "approved"
	// ProposalExecuting: keeper's execute transaction is signed and
	// journaled (ExecuteSig), not yet settled.
	ProposalExecuting ProposalState = "executing"
	// ProposalExecuted: the vault transaction ran.
	ProposalExecuted ProposalState = "executed"
	// ProposalRejected: the members rejected it.
	ProposalRejected ProposalState = "rejected"
	// ProposalCancelled: the members cancelled it after approving.
	ProposalCancelled ProposalState = "cancelled"
	// ProposalSuperseded: a config change of the multisig made it stale
	// before it was approved.
	ProposalSuperseded ProposalState = "superseded"
	// ProposalAbandoned: the creating transaction never landed.
	ProposalAbandoned ProposalState = "abandoned"
)

// Open reports whether s is not settled.
func (s ProposalState) Open() bool {
	switch s {
	case ProposalProposing, ProposalProposed, ProposalApproved, ProposalExecuting:
		return true
	}
	return false
}

// Proposal is one Squads proposal keeper made for an action.
type Proposal struct {
	Multisig string
	Index    uint64
	ActionID string
	Policy   string
	Target   string
	// Message is the vault transaction's message (base64 of its compact
	// form), as the guard passed it.
	Message string
	State   ProposalState
	// Approvers are the members that approved, comma-separated.
	Approvers string
	Detail    string
	// ExecuteSig and ExecuteTx are keeper's signed execute transaction
	// (signature, base64 wire), journaled before it is sent.
	ExecuteSig, ExecuteTx string
	CreatedAt             time.Time
	ApprovedAt, SettledAt time.Time
}

// RecordProposal journals p as proposing, before the transaction that
// creates it is sent. A row left at the same index by an attempt whose
// transaction never landed is replaced; any other row there is an error.
func (j *Journal) RecordProposal(ctx context.Context, p Proposal) (err error) {
	defer wrap(&err, "record proposal %s/%d", p.Multisig, p.Index)
	return j.write(ctx, durable, func(tx dbtx) error {
		n, err := rowsAffected(tx.ExecContext(ctx, `INSERT INTO squads_proposals
			(multisig, tx_index, action_id, policy, target, message, state, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (multisig, tx_index) DO UPDATE SET action_id = excluded.action_id, policy = excluded.policy,
				target = excluded.target, message = excluded.message, state = excluded.state, created_at = excluded.created_at,
				detail = '', approvers = '', settled_at = NULL
			WHERE squads_proposals.state IN ('proposing', 'abandoned')`,
			p.Multisig, int64(p.Index), p.ActionID, p.Policy, p.Target, p.Message, string(ProposalProposing), j.stamp()))
		if err == nil && n == 0 {
			err = invalidf("transaction %d of %s is another proposal's", p.Index, p.Multisig)
		}
		return err
	})
}

// ProposalUpdate is a change of a proposal's state; empty fields keep
// their value.
type ProposalUpdate struct {
	State                 ProposalState
	Approvers, Detail     string
	ExecuteSig, ExecuteTx string
	// FeeLamports is the fee keeper's execution paid (landed or failed on
	// chain); it is added to the proposal's action's last attempt, so that
	// history shows it and the day's fees count it.
	FeeLamports uint64
}

// UpdateProposal moves the proposal at multisig/index to u.State, stamping
// its approval or settlement.
func (j *Journal) UpdateProposal(ctx context.Context, multisig string, index uint64, u ProposalUpdate) (err error) {
	defer wrap(&err, "update proposal %s/%d to %s", multisig, index, u.State)
	return j.write(ctx, durable, func(tx dbtx) error {
		now := j.stamp()
		var approved, settled any
		if u.State == ProposalApproved {
			approved = now
		}
		if !u.State.Open() {
			settled = now
		}
		if err := addProposalFee(ctx, tx, multisig, index, u.FeeLamports); err != nil {
			return err
		}
		if !u.State.Open() && u.State != ProposalAbandoned { // an abandoned proposal's action keeps its own outcome
			if err := noteProposalOutcome(ctx, tx, multisig, index, u, now); err != nil {
				return err
			}
		}
		n, err := rowsAffected(tx.ExecContext(ctx, `UPDATE squads_proposals SET state = ?,
			approvers = CASE WHEN ? = '' THEN approvers ELSE ? END,
			detail = CASE WHEN ? = '' THEN detail ELSE ? END,
			execute_sig = CASE WHEN ? = '' THEN execute_sig ELSE ? END,
			execute_tx = CASE WHEN ? = '' THEN execute_tx ELSE ? END,
			approved_at = COALESCE(approved_at, ?), settled_at = COALESCE(settled_at, ?)
			WHERE multisig = ? AND tx_index = ?`, string(u.State), u.Approvers, u.Approvers, u.Detail, u.Detail,
			u.ExecuteSig, u.ExecuteSig, u.ExecuteTx, u.ExecuteTx, approved, settled, multisig, int64(index)))
		if err == nil && n == 0 {
			err = invalidf("no proposal %d of %s", index, multisig)
		}
		return err
	})
}

// addProposalFee adds fee, what keeper's execution of the proposal at
// multisig/index paid, to the last attempt of the proposal's action.
func addProposalFee(ctx context.Context, tx dbtx, multisig string, index uint64, fee uint64) error {
	if fee == 0 {
		return nil
	}
	if !fitsInt64(fee) {
		return invalidf("execution fee %d lamports out of range", fee)
	}
	_, err := tx.ExecContext(ctx, `UPDATE attempts SET fee_lamports = fee_lamports + ?
		WHERE action_id = (SELECT action_id FROM squads_proposals WHERE multisig = ? AND tx_index = ?)
		AND attempt = (SELECT MAX(attempt) FROM attempts WHERE action_id =
			(SELECT action_id FROM squads_proposals WHERE multisig = ? AND tx_index = ?))`,
		int64(fee), multisig, int64(index), multisig, int64(index))
	return err
}

// ProposalRule is the rule a proposal's action carries: "proposal-proposed"
// once its proposal landed, then how the proposal settled:
// "proposal-executed", "proposal-rejected", ...
func ProposalRule(state ProposalState) Rule { return Rule("proposal-" + string(state)) }

// ActionState is the state of a proposal's action once the proposal
// settled in s: landed when it was executed (the change is made), failed
// when it never can be (rejected, cancelled, superseded by a config
// change). An abandoned proposal's action keeps the outcome of its own
// attempt.
func (s ProposalState) ActionState() State {
	if s == ProposalExecuted {
		return StateLanded
	}
	return StateFailed
}

// noteProposalOutcome records on the proposal's action how its proposal
// settled: its rule and detail, and its state (u.State.ActionState). The
// action landed when its proposal did, and it is the one action whose
// landed state is not the end: a proposal the members reject, cancel or
// let go stale moves it from landed to failed here, and nowhere else (its
// attempt stays landed: the proposal's transaction is on chain).
func noteProposalOutcome(ctx context.Context, tx dbtx, multisig string, index uint64, u ProposalUpdate, now int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE actions SET state = CASE WHEN state = ? THEN ? ELSE state END,
			rule = ?, detail = ?, updated_at = ?
		WHERE id = (SELECT action_id FROM squads_proposals WHERE multisig = ? AND tx_index = ?)`,
		string(StateLanded), string(u.State.ActionState()), string(ProposalRule(u.State)), u.Detail, now, multisig, int64(index))
	return err
}

// ProposalFilter selects proposals; the zero value selects all.
type ProposalFilter struct {
	// Open keeps the proposals not settled.
	Open           bool
	Policy, Target string
	ActionID       string
}

// Proposals lists proposals, oldest first.
func (j *Journal) Proposals(ctx context.Context, f ProposalFilter) (out []Proposal, err error) {
	defer wrap(&err, "proposals")
	var w clause
	w.and(f.Open, "settled_at IS NULL")
	w.and(f.Policy != "", "policy = ?", f.Policy)
	w.and(f.Target != "", "target = ?", f.Target)
	w.and(f.ActionID != "", "action_id = ?", f.ActionID)
	return readAll(ctx, j, queryProposals, w.String()+" ORDER BY created_at, tx_index", w.args...)
}

// proposalColumns are the columns scanProposal reads, in order.
const proposalColumns = `multisig, tx_index, action_id, policy, target, message, state, approvers, detail,
	execute_sig, execute_tx, created_at, approved_at, settled_at`

// queryProposals reads the proposals the clause where selects.
func queryProposals(ctx context.Context, q querier, where string, args ...any) ([]Proposal, error) {
	return collect(ctx, q, "proposals", `SELECT `+proposalColumns+` FROM squads_proposals `+where, args, scanProposal)
}

// scanProposal reads one row of proposalColumns.
func scanProposal(s scanner) (Proposal, error) {
	var (
		p                 Proposal
		index, created    int64
		approved, settled sql.NullInt64
		state             string
	)
	err := s.Scan(&p.Multisig, &index, &p.ActionID, &p.Policy, &p.Target, &p.Message, &state, &p.Approvers,
		&p.Detail, &p.ExecuteSig, &p.ExecuteTx, &created, &approved, &settled)
	p.Index, p.State = uint64(index), ProposalState(state)
	p.CreatedAt, p.ApprovedAt, p.SettledAt = fromNanos(created), fromNullNanos(approved), fromNullNanos(settled)
	return p, err
}
