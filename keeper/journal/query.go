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
	var b strings.Builder
	b.WriteString(`SELECT ` + actionColumns + ` FROM actions WHERE created_at >= ? AND created_at < ?`)
	args := []any{lowerBound(f.Since), upperBound(f.Until)}
	if f.Policy != "" {
		b.WriteString(` AND policy = ?`)
		args = append(args, f.Policy)
	}
	if f.Target != "" {
		b.WriteString(` AND target = ?`)
		args = append(args, f.Target)
	}
	if len(f.States) > 0 {
		for _, s := range f.States {
			if !s.Valid() {
				return "", nil, invalidf("unknown state %q", s)
			}
		}
		in, stateArgs := stateList(f.States)
		if !slices.ContainsFunc(f.States, State.Final) {
			b.WriteString(` AND settled_at IS NULL`) // indexed, as the state is not
		}
		b.WriteString(` AND state IN ` + in)
		args = append(args, stateArgs...)
	}
	b.WriteString(` ORDER BY created_at DESC, id DESC`)
	if f.Limit > 0 {
		b.WriteString(` LIMIT ?`)
		args = append(args, f.Limit)
	}
	return b.String(), args, nil
}

// stateList returns "(?, ...)" and the arguments for states.
func stateList(states []State) (string, []any) {
	names := make([]string, len(states))
	for i, s := range states {
		names[i] = string(s)
	}
	return inList(names)
}
