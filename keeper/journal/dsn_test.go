package journal

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseDSN(t *testing.T) {
	tests := []struct {
		dsn      string
		wantPath string
		wantErr  bool
	}{
		{dsn: "sqlite::memory:", wantPath: ":memory:"},
		{dsn: "sqlite:keeper.db", wantPath: "keeper.db"},
		{dsn: "sqlite:/var/lib/keeper/keeper.db", wantPath: "/var/lib/keeper/keeper.db"},
		{dsn: "sqlite:", wantErr: true},
		{dsn: "postgres://x", wantErr: true},
		{dsn: "keeper.db", wantErr: true},
		{dsn: "sqlite:a?b.db", wantErr: true},
		{dsn: "sqlite:a#b.db", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.dsn, func(t *testing.T) {
			loc, err := parseDSN(tt.dsn)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("parseDSN(%q) error = %v, want ErrInvalid", tt.dsn, err)
				}
				return
			}
			if err != nil || loc.path != tt.wantPath {
				t.Fatalf("parseDSN(%q) = %q, %v; want %q", tt.dsn, loc.path, err, tt.wantPath)
			}
		})
	}
}

func TestDriverDSN(t *testing.T) {
	file := location{path: "/data/keeper.db"}.driverDSN(DefaultBusyTimeout)
	for _, want := range []string{"/data/keeper.db?", "_journal_mode=WAL", "_synchronous=FULL",
		"_busy_timeout=5000", "_foreign_keys=1", "_txlock=immediate", "_pragma=page_size%282048%29"} {
		if !strings.Contains(file, want) {
			t.Errorf("file driver DSN %q lacks %q", file, want)
		}
	}
	if mem := (location{path: memoryPath}).driverDSN(DefaultBusyTimeout); strings.Contains(mem, "WAL") || strings.Contains(mem, "page_size") {
		t.Errorf("memory driver DSN %q asks for WAL or a page size", mem)
	}
	if got := (location{path: "file:x.db"}).driverDSN(DefaultBusyTimeout); !strings.HasPrefix(got, "./file:x.db?") {
		t.Errorf("driver DSN for a path starting with file: is %q, want it made relative", got)
	}
}

func TestOpenRejectsBadDSN(t *testing.T) {
	j, err := Open(t.Context(), "mysql://localhost/keeper", Options{})
	if err == nil {
		j.Close()
		t.Fatal("Open accepted a mysql DSN")
	}
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "mysql://localhost/keeper") {
		t.Fatalf("Open error = %v, want ErrInvalid naming the DSN", err)
	}
}

func TestOpenMissingDirectoryFails(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "missing", "keeper.db")
	j, err := Open(t.Context(), dsn, Options{})
	if err == nil {
		j.Close()
		t.Fatal("Open in a missing directory succeeded")
	}
	if !strings.Contains(err.Error(), "keeper.db") {
		t.Fatalf("Open error = %v, want it to name the file", err)
	}
}
