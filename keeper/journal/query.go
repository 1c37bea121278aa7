package journal

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Get returns action id with its attempts, signatures and tips, or an error
// matching ErrNotFound.
func (j *Journal) Get(ctx context.Context, id string) (Action, error) {
	var act Action
	err := j.read(ctx, func(tx dbtx) error {
		var err error
		act, err = getAction(ctx, tx, id)
		return err
	})
	if err != nil {
		return Action{}, fmt.Errorf("journal: get %q: %w", id, err)
	}
	return act, nil
}

// Pending returns every action that is not final (planned, built, signed,
// submitted or expired), oldest first, with its attempts, signatures and
// tips: what startup recovery must settle by asking the chain.
func (j *Journal) Pending(ctx context.Context) ([]Action, error) {
	query, args := pendingQuery()
	acts, err := readAll(ctx, j, queryActions, query, args...)
	if err != nil {
		return nil, fmt.Errorf("journal: pending: %w", err)
	}
	return acts, nil
}

// pendingQuery returns Pending's SELECT and its arguments.
func pendingQuery() (string, []any) {
	var open []State
	for _, s := range States() {
		if !s.Final() {
			open = append(open, s)
		}
	}
	in, args := stateList(open)
	return `SELECT ` + actionColumns + ` FROM actions
		WHERE settled_at IS NULL AND state IN ` + in + ` ORDER BY created_at, id`, args
}

// List returns the actions f selects, newest first, with their attempts,
// signatures and tips.
func (j *Journal) List(ctx context.Context, f Filter) ([]Action, error) {
	query, args, err := f.query()
	if err != nil {
		return nil, fmt.Errorf("journal: list: %w", err)
	}
	acts, err := readAll(ctx, j, queryActions, query, args...)
	if err != nil {
		return nil, fmt.Errorf("journal: list: %w", err)
	}
	return acts, nil
}

// query builds the SELECT for f.
func (f Filter) query() (string, []any, error) {
	if f.Limit < 0 {
		return "", nil, invalidf("negative limit %d", f.Limit)
	}
	for _, s := range f.States {
		if !s.Valid() {
			return "", nil, invalidf("unknown state %q", s)
		}
	}
	var w clause
	// Always a range: without one, SQLite answers a query by policy and
	// target from the (policy, created_at) index, reading all the policy's
	// actions (see TestStateQueriesUseAnIndex).
	w.and(true, `created_at >= ? AND created_at < ?`, lowerBound(f.Since), upperBound(f.Until))
	w.and(f.Policy != "", `policy = ?`, f.Policy)
	w.and(f.Target != "", `target = ?`, f.Target)
	// settled_at is indexed, as the state is not.
	w.and(len(f.States) > 0 && !slices.ContainsFunc(f.States, State.Final), `settled_at IS NULL`)
	in, states := stateList(f.States)
	w.and(len(f.States) > 0, `state IN `+in, states...)
	query := `SELECT ` + actionColumns + ` FROM actions ` + w.String() + ` ORDER BY created_at DESC, id DESC`
	if f.Limit > 0 {
		query += ` LIMIT ?`
		w.args = append(w.args, f.Limit)
	}
	return query, w.args, nil
}

// clause is a WHERE clause being built: conditions joined by AND, and
// their arguments in order.
type clause struct {
	conds []string
	args  []any
}

// and adds cond, with its arguments, when on holds.
func (c *clause) and(on bool, cond string, args ...any) {
	if on {
		c.conds = append(c.conds, cond)
		c.args = append(c.args, args...)
	}
}

// String returns "WHERE cond AND …", or "" without conditions.
func (c clause) String() string {
	if len(c.conds) == 0 {
		return ""
	}
	return "WHERE " + strings.Join(c.conds, " AND ")
}

// stateList returns "(?, ...)" and the arguments for states.
func stateList(states []State) (string, []any) {
	names := make([]string, len(states))
	for i, s := range states {
		names[i] = string(s)
	}
	return inList(names)
}
