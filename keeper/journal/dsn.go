package journal

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// dsnPrefix is the scheme of every journal DSN this package opens.
const dsnPrefix = "sqlite:"

// memoryPath is the DSN path of a private in-memory database.
const memoryPath = ":memory:"

// location is a parsed journal DSN.
type location struct {
	// path is the database file, or memoryPath.
	path string
}

// memory reports whether the database lives in memory only.
func (l location) memory() bool { return l.path == memoryPath }

// parseDSN parses "sqlite:PATH" or "sqlite::memory:".
func parseDSN(dsn string) (location, error) {
	path, ok := strings.CutPrefix(dsn, dsnPrefix)
	if !ok {
		return location{}, invalidf("journal dsn %q: want %sPATH or %s%s", dsn, dsnPrefix, dsnPrefix, memoryPath)
	}
	switch {
	case path == "":
		return location{}, invalidf("journal dsn %q: empty path", dsn)
	case strings.ContainsAny(path, "?#\x00"):
		return location{}, invalidf("journal dsn %q: path may not contain '?', '#' or NUL", dsn)
	}
	return location{path: path}, nil
}

// driverDSN returns the modernc.org/sqlite data source name for l: busy
// timeout, foreign keys, write transactions that take the write lock at
// BEGIN, and for files WAL mode with synchronous=FULL.
func (l location) driverDSN(busy time.Duration) string {
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(busy.Milliseconds(), 10))
	q.Set("_foreign_keys", "1")
	q.Set("_txlock", "immediate")
	if !l.memory() {
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
