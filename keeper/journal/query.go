package journal

import (
	"context"
	"slices"
	"strings"
)

// Get returns action id with its attempts, signatures and tips, or an error
// matching ErrNotFound.
func (j *Journal) Get(ctx context.Context, id string) (act Action, err error) {
	defer wrap(&err, "get %q", id)
	err = j.read(ctx, func(tx dbtx) (err error) {
		act, err = getAction(ctx, tx, id)
		return err
	})
	return act, err
}

// Pending returns every action that is not final (planned, built, signed,
// submitted or expired), oldest first, with its attempts, signatures and
// tips: what startup recovery must settle by asking the chain. An action's
// settled_at is set exactly when it reaches a final state.
func (j *Journal) Pending(ctx context.Context) (acts []Action, err error) {
	defer wrap(&err, "pending")
	return readAll(ctx, j, queryActions, pendingQuery)
}

// pendingQuery is Pending's SELECT.
const pendingQuery = `SELECT ` + actionColumns + ` FROM actions WHERE settled_at IS NULL ORDER BY created_at, id`

// List returns the actions f selects, newest first, with their attempts,
// signatures and tips.
func (j *Journal) List(ctx context.Context, f Filter) (acts []Action, err error) {
	defer wrap(&err, "list")
	query, args, err := f.query()
	if err != nil {
		return nil, err
	}
	return readAll(ctx, j, queryActions, query, args...)
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
