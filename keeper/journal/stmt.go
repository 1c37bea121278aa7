package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// fixedStatements are the statements of the action path, registered with
// stmt and prepared once when a journal opens: SQLite parses a statement
// every time it runs unprepared.
var fixedStatements []string

// stmt registers q as a fixed statement and returns it.
func stmt(q string) string {
	fixedStatements = append(fixedStatements, q)
	return q
}

// statements are a journal's prepared fixed statements by their text,
// written once by prepareStatements and only read after.
type statements map[string]*sql.Stmt

// prepareStatements prepares every fixed statement on db in d's syntax.
func prepareStatements(ctx context.Context, db *sql.DB, d dialect) (statements, error) {
	s := make(statements, len(fixedStatements))
	for _, q := range fixedStatements {
		st, err := db.PrepareContext(ctx, d.rebind(q))
		if err != nil {
			return nil, errors.Join(fmt.Errorf("prepare %q: %w", q, err), s.close())
		}
		s[q] = st
	}
	return s, nil
}

// close releases every prepared statement.
func (s statements) close() error {
	var errs []error
	for _, st := range s {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}

// dbtx is a transaction of the journal: a fixed statement runs prepared, any
// other in the placeholder syntax of the journal's database.
type dbtx struct {
	tx      *sql.Tx
	stmts   statements // nil during migrations
	dialect dialect
}

// stmt returns the transaction's handle of query's prepared statement, or
// nil when query is not a fixed statement.
func (t dbtx) stmt(ctx context.Context, query string) *sql.Stmt {
	if st, ok := t.stmts[query]; ok {
		return t.tx.StmtContext(ctx, st)
	}
	return nil
}

// ExecContext runs a statement that returns no rows.
func (t dbtx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, t.dialect.rebind(query), args...)
}

// QueryContext runs a query that returns rows.
func (t dbtx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, t.dialect.rebind(query), args...)
}

// QueryRowContext runs a query that returns at most one row.
func (t dbtx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, t.dialect.rebind(query), args...)
}
