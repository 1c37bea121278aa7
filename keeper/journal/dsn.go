package journal

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// dsnPrefix is the scheme of an SQLite journal DSN.
const dsnPrefix = "sqlite:"

// memoryPath is the DSN path of a private in-memory database.
const memoryPath = ":memory:"

// location is a parsed journal DSN.
type location struct {
	// path is the database file, or memoryPath; empty for PostgreSQL.
	path string
	// server is the PostgreSQL connection string, "" for SQLite. It may
	// hold a password: it never goes into an error or a log line (see name).
	server string
	// name is how errors and logs name the database: the SQLite path, or
	// the PostgreSQL URL without its password and parameters.
	name string
}

// memory reports whether the database lives in memory only.
func (l location) memory() bool { return l.path == memoryPath }

// dialect returns the SQL dialect of the database at l.
func (l location) dialect() dialect {
	if l.server != "" {
		return postgresDialect
	}
	return sqliteDialect
}

// parseDSN parses "sqlite:PATH", "sqlite::memory:", or a PostgreSQL URL
// ("postgres://…" or "postgresql://…").
func parseDSN(dsn string) (location, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return parsePostgresDSN(dsn)
	}
	path, ok := strings.CutPrefix(dsn, dsnPrefix)
	if !ok {
		return location{}, invalidf("journal dsn %q: want %sPATH, %s%s or postgres://USER@HOST/DATABASE",
			redactDSN(dsn), dsnPrefix, dsnPrefix, memoryPath)
	}
	switch {
	case path == "":
		return location{}, invalidf("journal dsn %q: empty path", dsn)
	case strings.ContainsAny(path, "?#\x00"):
		return location{}, invalidf("journal dsn %q: path may not contain '?', '#' or NUL", dsn)
	}
	return location{path: path, name: path}, nil
}

// parsePostgresDSN checks a PostgreSQL URL as the driver will read it.
func parsePostgresDSN(dsn string) (location, error) {
	name := redactDSN(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// The driver's message may quote the URL; say only which one failed.
		return location{}, invalidf("journal dsn %s: not a PostgreSQL connection URL", name)
	}
	if cfg.Database == "" {
		return location{}, invalidf("journal dsn %s: names no database", name)
	}
	return location{server: dsn, name: name}, nil
}

// redactDSN returns dsn as errors and logs may show it: a URL keeps its
// scheme, user, host and path, and loses its password and parameters;
// anything else that is not an SQLite DSN is reduced to its scheme.
func redactDSN(dsn string) string {
	if strings.HasPrefix(dsn, dsnPrefix) {
		return dsn
	}
	scheme, rest, ok := strings.Cut(dsn, "://")
	if !ok {
		return "(not a URL)"
	}
	rest, _, _ = strings.Cut(rest, "?")
	rest, _, _ = strings.Cut(rest, "#")
	hostPath := rest
	user := ""
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		hostPath = rest[i+1:]
		user, _, _ = strings.Cut(rest[:i], ":")
		user += "@"
	}
	return scheme + "://" + user + hostPath
}

// pageSize is the page size of a journal file SQLite creates. A commit
// writes every page it changed, whole, to the write-ahead log, and each of an
// action's writes changes a row or two: with pages half SQLite's default
// of 4 KiB a durable commit has fewer bytes to flush, and a signed
// transaction's row (at most 1,644 base64 bytes of transaction) still fits
// in one page. SQLite applies it only to a database it creates; a journal
// made with another page size keeps its own.
const pageSize = 2048

// driverDSN returns the modernc.org/sqlite data source name for l: busy
// timeout, foreign keys, write transactions that take the write lock at
// BEGIN, and for files pageSize, WAL mode and synchronous=FULL.
func (l location) driverDSN(busy time.Duration) string {
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(busy.Milliseconds(), 10))
	q.Set("_foreign_keys", "1")
	q.Set("_txlock", "immediate")
	if !l.memory() {
		// modernc runs _pragma before it sets the journal mode, which
		// fixes a new database's page size.
		q.Set("_pragma", "page_size("+strconv.Itoa(pageSize)+")")
		q.Set("_journal_mode", "WAL")
		q.Set("_synchronous", "FULL")
	}
	path := l.path
	if strings.HasPrefix(path, "file:") {
		// A leading "file:" would be read as an SQLite URI.
		path = "./" + path
	}
	return fmt.Sprintf("%s?%s", path, q.Encode())
}
