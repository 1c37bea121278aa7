package journal

import (
	"database/sql"
	"strings"
	"testing"
)

// TestStateQueriesUseAnIndex: the queries that find actions by state
// (Pending; List of in-flight states, by target as the claims check asks,
// or by policy and target) search an index by a key that selects the
// unsettled actions or the target's, instead of reading every action,
// though no index holds the state.
func TestStateQueriesUseAnIndex(t *testing.T) {
	sqliteOnly(t)
	j := openMemory(t, newClock())
	queries := map[string]struct {
		query string
		args  []any
	}{"Pending": {pendingQuery, nil}}
	for name, f := range map[string]Filter{
		"in flight by target":            {Target: "t", States: InFlightStates()},
		"in flight by policy and target": {Policy: "p", Target: "t", States: InFlightStates()},
	} {
		q, args, err := f.query()
		if err != nil {
			t.Fatal(err)
		}
		queries[name] = struct {
			query string
			args  []any
		}{q, args}
	}
	for name, q := range queries {
		plan := queryPlan(t, j, q.query, q.args)
		if !strings.Contains(plan, "SEARCH actions USING INDEX") ||
			!strings.Contains(plan, "(settled_at=?") && !strings.Contains(plan, "target=?") {
			t.Errorf("%s: query plan %q, want a search of an index by settled_at or target", name, plan)
		}
	}
}

// queryPlan returns SQLite's plan for query, its steps joined by "; ".
func queryPlan(t *testing.T, j *Journal, query string, args []any) string {
	t.Helper()
	var steps []string
	err := eachRow(t.Context(), j.db, "plan", "EXPLAIN QUERY PLAN "+query, args, func(rows *sql.Rows) error {
		var id, parent, unused int
		var detail string
		err := rows.Scan(&id, &parent, &unused, &detail)
		steps = append(steps, detail)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(steps, "; ")
}
