package journal

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// actionColumns are the columns scanAction reads, in order.
const actionColumns = `id, policy, kind, target, inputs, reason, dry_run, mint, amount, state, attempts,
	rule, detail, created_at, updated_at, settled_at`

// scanner is what *sql.Row and *sql.Rows have in common.
type scanner interface {
	Scan(dest ...any) error
}

// selectAction reads one action's row (see getAction).
var selectAction = stmt(`SELECT ` + actionColumns + ` FROM actions WHERE id = ?`)

// getAction reads one action with its attempts, or ErrNotFound.
func getAction(ctx context.Context, q querier, id string) (Action, error) {
	acts, err := queryActions(ctx, q, selectAction, id)
	switch {
	case err != nil:
		return Action{}, err
	case len(acts) == 0:
		return Action{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return acts[0], nil
}

// queryActions runs an action query and attaches every action's attempts.
func queryActions(ctx context.Context, q querier, query string, args ...any) ([]Action, error) {
	acts, err := collect(ctx, q, "actions", query, args, scanAction)
	if err != nil {
		return nil, err
	}
	if err := attachAttempts(ctx, q, acts); err != nil {
		return nil, err
	}
	return acts, nil
}

// eachRow runs query and calls fn for every row until fn fails; what names
// the rows in errors. The rows are always closed.
func eachRow(ctx context.Context, q querier, what, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("query %s: %w", what, err)
	}
	for rows.Next() {
		if err := fn(rows); err != nil {
			return errors.Join(fmt.Errorf("read %s: %w", what, err), rows.Close())
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("query %s: %w", what, err)
	}
	return nil
}

// collect runs query and returns its rows, each read by scan; what names
// the rows in errors.
func collect[T any](ctx context.Context, q querier, what, query string, args []any, scan func(scanner) (T, error)) ([]T, error) {
	var out []T
	err := eachRow(ctx, q, what, query, args, func(rows *sql.Rows) error {
		v, err := scan(rows)
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scanAction reads one row of actionColumns.
func scanAction(s scanner) (Action, error) {
	var (
		a       Action
		inputs  string
		amount  string
		state   string
		dryRun  int
		created int64
		updated int64
		settled sql.NullInt64
	)
	err := s.Scan(&a.ID, &a.Policy, &a.Kind, &a.Target, &inputs, &a.Reason, &dryRun, &a.Mint, &amount,
		&state, &a.AttemptCount, &a.Rule, &a.Detail, &created, &updated, &settled)
	if err != nil {
		return Action{}, err
	}
	if a.Amount, err = strconv.ParseUint(amount, 10, 64); err != nil {
		return Action{}, fmt.Errorf("action %q: amount %q: %w", a.ID, amount, err)
	}
	if a.State = State(state); !a.State.Valid() {
		return Action{}, fmt.Errorf("action %q: unknown state %q", a.ID, state)
	}
	a.Inputs = json.RawMessage(inputs)
	a.DryRun = dryRun != 0
	a.CreatedAt, a.UpdatedAt, a.SettledAt = fromNanos(created), fromNanos(updated), fromNullNanos(settled)
	return a, nil
}
