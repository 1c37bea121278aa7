package journal

import (
	"strconv"
	"strings"
)

// dialect is the SQL database behind a journal: the statements are plain SQL
// both understand, written with "?" placeholders; PostgreSQL numbers them.
type dialect int

const (
	// sqliteDialect is the embedded SQLite database, the default.
	sqliteDialect dialect = iota
	// postgresDialect is a PostgreSQL server, for keepers that share one
	// journal (see Campaign).
	postgresDialect
)

// rebind returns query with its placeholders in d's syntax: PostgreSQL
// wants $1, $2, …; a "?" inside a quoted literal is left alone.
func (d dialect) rebind(query string) string {
	if d != postgresDialect || !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n, quoted := 0, false
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case c == '\'':
			quoted = !quoted
		case c == '?' && !quoted:
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
