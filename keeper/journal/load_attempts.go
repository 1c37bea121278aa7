package journal

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// attemptColumns are the columns scanAttempt reads, in order.
const attemptColumns = `action_id, attempt, idempotency_key, mode, tip_lamports, fee_lamports, outcome,
	rule, detail, created_at, built_at, signed_at, submitted_at, settled_at`

// idChunk bounds the IDs bound into one IN (...) list.
const idChunk = 500

// attachAttempts fills in the attempts of every action that has any.
func attachAttempts(ctx context.Context, q querier, acts []Action) error {
	var ids []string
	index := make(map[string]int, len(acts))
	for i, a := range acts {
		if a.AttemptCount > 0 {
			ids = append(ids, a.ID)
			index[a.ID] = i
		}
	}
	for start := 0; start < len(ids); start += idChunk {
		chunk := ids[start:min(start+idChunk, len(ids))]
		byAction, err := loadAttempts(ctx, q, chunk)
		if err != nil {
			return err
		}
		for id, atts := range byAction {
			acts[index[id]].Attempts = atts
		}
	}
	return nil
}

// loadAttempts reads the attempts, transactions, signatures and tips of the
// given actions, keyed by action ID, attempts oldest first.
func loadAttempts(ctx context.Context, q querier, ids []string) (map[string][]Attempt, error) {
	in, args := inList(ids)
	byAction, err := queryAttempts(ctx, q,
		`SELECT `+attemptColumns+` FROM attempts WHERE action_id IN `+in+` ORDER BY action_id, attempt`, args...)
	if err != nil {
		return nil, err
	}
	if err := attachTransactions(ctx, q, in, args, byAction); err != nil {
		return nil, err
	}
	if err := attachSignatures(ctx, q, in, args, byAction); err != nil {
		return nil, err
	}
	if err := attachTips(ctx, q, in, args, byAction); err != nil {
		return nil, err
	}
	return byAction, nil
}

// inList returns "(?, ?, ...)" and the arguments for ids.
func inList(ids []string) (string, []any) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ") + ")", args
}

// queryAttempts reads attempt rows, grouped by action ID in row order.
func queryAttempts(ctx context.Context, q querier, query string, args ...any) (map[string][]Attempt, error) {
	byAction := make(map[string][]Attempt)
	err := eachRow(ctx, q, "attempts", query, args, func(rows *sql.Rows) error {
		att, err := scanAttempt(rows)
		byAction[att.ActionID] = append(byAction[att.ActionID], att)
		return err
	})
	if err != nil {
		return nil, err
	}
	return byAction, nil
}

// scanAttempt reads one row of attemptColumns.
func scanAttempt(s scanner) (Attempt, error) {
	var (
		a                               Attempt
		mode, outcome                   string
		tip, fee, created               int64
		built, signed, submitted, settl sql.NullInt64
	)
	err := s.Scan(&a.ActionID, &a.Number, &a.IdempotencyKey, &mode, &tip, &fee, &outcome, &a.Rule, &a.Detail,
		&created, &built, &signed, &submitted, &settl)
	if err != nil {
		return Attempt{}, err
	}
	if tip < 0 || fee < 0 {
		return Attempt{}, fmt.Errorf("attempt %s: negative lamports (tip %d, fee %d)", a.IdempotencyKey, tip, fee)
	}
	a.Mode, a.Outcome = Mode(mode), State(outcome)
	a.TipLamports, a.FeeLamports = uint64(tip), uint64(fee)
	a.CreatedAt, a.BuiltAt, a.SignedAt = fromNanos(created), fromNullNanos(built), fromNullNanos(signed)
	a.SubmittedAt, a.SettledAt = fromNullNanos(submitted), fromNullNanos(settl)
	return a, nil
}

// attachTransactions adds the built transactions to the attempts.
func attachTransactions(ctx context.Context, q querier, in string, args []any, byAction map[string][]Attempt) error {
	return eachRow(ctx, q, "transactions", `SELECT action_id, attempt, body FROM attempt_transactions
		WHERE action_id IN `+in+` ORDER BY action_id, attempt, seq`, args, func(rows *sql.Rows) error {
		var (
			id, body string
			n        int
		)
		if err := rows.Scan(&id, &n, &body); err != nil {
			return err
		}
		if att := findAttempt(byAction, id, n); att != nil {
			att.Transactions = append(att.Transactions, body)
		}
		return nil
	})
}

// attachSignatures adds the signed transactions to the attempts.
func attachSignatures(ctx context.Context, q querier, in string, args []any, byAction map[string][]Attempt) error {
	return eachRow(ctx, q, "signatures", `SELECT action_id, attempt, signature, blockhash, last_valid_block_height,
		signed_tx FROM signatures WHERE action_id IN `+in+` ORDER BY action_id, attempt, seq`, args,
		func(rows *sql.Rows) error {
			var (
				id   string
				n    int
				s    SignedTx
				lvbh int64
			)
			if err := rows.Scan(&id, &n, &s.Signature, &s.Blockhash, &lvbh, &s.Transaction); err != nil {
				return err
			}
			s.LastValidBlockHeight = uint64(max(lvbh, 0))
			if att := findAttempt(byAction, id, n); att != nil {
				att.Signatures = append(att.Signatures, s)
			}
			return nil
		})
}

// attachTips adds the journaled tip transactions to the attempts.
func attachTips(ctx context.Context, q querier, in string, args []any, byAction map[string][]Attempt) error {
	return eachRow(ctx, q, "tips", `SELECT action_id, attempt, signature, blockhash, tip_account, lamports,
		signed_tx, created_at FROM tips WHERE action_id IN `+in+` ORDER BY action_id, attempt, seq`, args,
		func(rows *sql.Rows) error {
			var (
				id                string
				n                 int
				t                 Tip
				lamports, created int64
			)
			if err := rows.Scan(&id, &n, &t.Signature, &t.Blockhash, &t.Account, &lamports, &t.Transaction, &created); err != nil {
				return err
			}
			if lamports < 0 {
				return fmt.Errorf("tip %s: negative lamports %d", t.Signature, lamports)
			}
			t.Lamports, t.RecordedAt = uint64(lamports), fromNanos(created)
			if att := findAttempt(byAction, id, n); att != nil {
				att.Tips = append(att.Tips, t)
			}
			return nil
		})
}

// findAttempt returns attempt n of action id, or nil.
func findAttempt(byAction map[string][]Attempt, id string, n int) *Attempt {
	atts := byAction[id]
	for i := range atts {
		if atts[i].Number == n {
			return &atts[i]
		}
	}
	return nil
}
