package journal

import "testing"

func TestRebind(t *testing.T) {
	tests := []struct{ in, sqlite, postgres string }{
		{"SELECT 1", "SELECT 1", "SELECT 1"},
		{"UPDATE a SET b = ? WHERE c = ? AND d = ?", "UPDATE a SET b = ? WHERE c = ? AND d = ?", "UPDATE a SET b = $1 WHERE c = $2 AND d = $3"},
		{"SELECT '?', x FROM t WHERE y = ?", "SELECT '?', x FROM t WHERE y = ?", "SELECT '?', x FROM t WHERE y = $1"},
		{"VALUES (?,?,?,?,?,?,?,?,?,?,?)", "VALUES (?,?,?,?,?,?,?,?,?,?,?)", "VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)"},
	}
	for _, tt := range tests {
		if got := sqliteDialect.rebind(tt.in); got != tt.sqlite {
			t.Errorf("sqlite rebind(%q) = %q, want %q", tt.in, got, tt.sqlite)
		}
		if got := postgresDialect.rebind(tt.in); got != tt.postgres {
			t.Errorf("postgres rebind(%q) = %q, want %q", tt.in, got, tt.postgres)
		}
	}
}
