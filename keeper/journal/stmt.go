package journal

import (
	"context"
	"database/sql"
	"sync"
)

// dbtx is a transaction whose statements are prepared once per journal and
// reused: SQLite parses a statement every time it is not prepared, which
// was most of the journal's CPU per action. Without stmts (migrations,
// which run once) statements run unprepared.
type dbtx struct {
	tx      *sql.Tx
	stmts   *stmtCache
	dialect dialect // the placeholders' syntax when stmts is nil
}

// rebind returns query in the placeholder syntax of t's database.
func (t dbtx) rebind(query string) string {
	if t.stmts != nil {
		return t.stmts.dialect.rebind(query)
	}
	return t.dialect.rebind(query)
}

// ExecContext runs a statement that returns no rows.
func (t dbtx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.stmts.get(query); st != nil {
		return t.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, t.rebind(query), args...)
}

// QueryContext runs a query that returns rows.
func (t dbtx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.stmts.get(query); st != nil {
		return t.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, t.rebind(query), args...)
}

// QueryRowContext runs a query that returns at most one row.
func (t dbtx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.stmts.get(query); st != nil {
		return t.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, t.rebind(query), args...)
}

// stmtCache holds the journal's prepared statements by their text. The
// journal's statements are a fixed set (a few dozen), so it never evicts.
// A statement is prepared after its first use, once the transaction that
// used it has ended: the journal has one connection, and preparing on the
// database while a transaction holds it would wait for ever.
type stmtCache struct {
	db      *sql.DB
	dialect dialect

	mu      sync.Mutex
	m       map[string]*sql.Stmt // guarded by mu
	pending map[string]bool      // guarded by mu; used, not yet prepared
}

// get returns the prepared statement of query, or nil (noting the query
// for prepare) when it is not prepared yet. A nil cache prepares nothing.
func (c *stmtCache) get(query string) *sql.Stmt {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok {
		return st
	}
	if c.pending == nil {
		c.pending = map[string]bool{}
	}
	c.pending[query] = true
	return nil
}

// prepare prepares the statements used since the last call. Call it with
// no transaction of the journal open in this goroutine. A statement that
// fails to prepare keeps running unprepared.
func (c *stmtCache) prepare(ctx context.Context) {
	c.mu.Lock()
	var queries []string
	for q := range c.pending {
		queries = append(queries, q)
	}
	c.pending = nil
	c.mu.Unlock()
	for _, q := range queries {
		st, err := c.db.PrepareContext(ctx, c.dialect.rebind(q))
		if err != nil {
			continue
		}
		c.mu.Lock()
		if c.m == nil {
			c.m = map[string]*sql.Stmt{}
		}
		if _, dup := c.m[q]; dup {
			_ = st.Close()
		} else {
			c.m[q] = st
		}
		c.mu.Unlock()
	}
}

// close releases every prepared statement.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		_ = st.Close()
	}
	c.m, c.pending = nil, nil
}
