package journal

import (
	"context"
	"database/sql"
	"testing"
)

// TestStatementsArePreparedAfterTheirFirstUse checks the journal's statement cache: a statement
// runs unprepared the first time, is prepared once the transaction that used it has ended, and
// runs prepared after that.
func TestStatementsArePreparedAfterTheirFirstUse(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	c := &stmtCache{db: db, dialect: sqliteDialect}
	t.Cleanup(c.close)
	const q = "SELECT 1 WHERE ? = 1"
	if c.get(q) != nil {
		t.Fatal("a statement never run is prepared")
	}
	c.prepare(ctx)
	st := c.get(q)
	if st == nil {
		t.Fatal("the statement is not prepared after its first run")
	}
	var one int
	if err := st.QueryRowContext(ctx, 1).Scan(&one); err != nil || one != 1 {
		t.Fatalf("the prepared statement answered %d, %v", one, err)
	}
	if got := c.get(q); got != st {
		t.Error("a later run does not use the prepared statement")
	}
}
