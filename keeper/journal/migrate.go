package journal

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"
)

// migration is one step of the schema history.
type migration struct {
	// version is the schema version the migration produces; versions
	// start at 1 and increase by one.
	version int
	// name says what the migration does.
	name string
	// statements run in order inside one transaction.
	statements []string
	// postgres replaces statements by index where PostgreSQL needs other
	// words for the same schema.
	postgres map[int]string
}

// statement returns the i-th statement of m in dialect d.
func (m migration) statement(d dialect, i int) string {
	if s, ok := m.postgres[i]; ok && d == postgresDialect {
		return s
	}
	return m.statements[i]
}

// latestVersion is the newest schema version this binary knows.
func latestVersion() int {
	return migrations[len(migrations)-1].version
}

// createVersionTable is the bookkeeping table: one row per applied
// migration.
const createVersionTable = `CREATE TABLE IF NOT EXISTS schema_version (
	version    INTEGER NOT NULL PRIMARY KEY,
	name       TEXT    NOT NULL,
	applied_at BIGINT  NOT NULL
)`

// migrate brings the schema up to latestVersion, refusing a database whose
// version is newer than that.
func migrate(ctx context.Context, db *sql.DB, d dialect, now func() time.Time, log *slog.Logger) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connection: %w", err)
	}
	defer conn.Close()
	if d == postgresDialect {
		unlock, err := lockMigrations(ctx, conn)
		if err != nil {
			return err
		}
		defer unlock()
	}
	if _, err := conn.ExecContext(ctx, createVersionTable); err != nil {
		return fmt.Errorf("create schema_version: %w", err)
	}
	current, err := schemaVersion(ctx, conn)
	if err != nil {
		return err
	}
	if err := checkVersion(current); err != nil {
		return err
	}
	for _, m := range migrations {
		if m.version <= current {
			continue
		}
		applied, err := apply(ctx, conn, d, m, now)
		if err != nil {
			return err
		}
		if applied {
			log.Info("journal schema migrated", "version", m.version, "migration", m.name)
		}
	}
	return nil
}

// checkVersion refuses a schema version this binary does not know.
func checkVersion(current int) error {
	if current > latestVersion() {
		return fmt.Errorf("%w: database has schema version %d, this keeper knows up to %d; use a newer keeper",
			ErrSchemaTooNew, current, latestVersion())
	}
	return nil
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// schemaVersion returns the highest applied migration, 0 for a new
// database.
func schemaVersion(ctx context.Context, q querier) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// apply runs migration m in its own transaction and reports whether it
// did. It re-reads the version under the write lock, so when two processes
// open a new database at once each migration runs exactly once.
func apply(ctx context.Context, conn *sql.Conn, d dialect, m migration, now func() time.Time) (bool, error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("migration %d: begin: %w", m.version, err)
	}
	applied, err := applyIn(ctx, dbtx{tx: tx, dialect: d}, m, now)
	if err != nil {
		return false, abort(tx, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("migration %d: commit: %w", m.version, err)
	}
	return applied, nil
}

// applyIn runs m inside tx unless another process applied it first.
func applyIn(ctx context.Context, tx dbtx, m migration, now func() time.Time) (bool, error) {
	current, err := schemaVersion(ctx, tx)
	if err != nil {
		return false, err
	}
	if err := checkVersion(current); err != nil || current >= m.version {
		return false, err
	}
	if current != m.version-1 {
		return false, fmt.Errorf("migration %d (%s): database is at version %d", m.version, m.name, current)
	}
	for i := range m.statements {
		if _, err := tx.ExecContext(ctx, m.statement(tx.dialect, i)); err != nil {
			return false, fmt.Errorf("migration %d (%s), statement %d: %w", m.version, m.name, i+1, err)
		}
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)`,
		m.version, m.name, now().UnixNano())
	if err != nil {
		return false, fmt.Errorf("migration %d: record version: %w", m.version, err)
	}
	return true, nil
}
