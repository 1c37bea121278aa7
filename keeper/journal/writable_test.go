package journal

import (
	"context"
	"path/filepath"
	"testing"
)

func TestWritable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "j.db")
	j, err := Open(ctx, "sqlite:"+path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Writable(ctx); err != nil {
		t.Fatalf("healthy journal: %v", err)
	}
	if vs := versions(t, j); len(vs) != len(migrations) || vs[len(vs)-1] != migrations[len(migrations)-1].version {
		t.Fatalf("versions after the probe = %v: the probe must change nothing", vs)
	}
	other, err := Open(ctx, "sqlite:"+path, Options{BusyTimeout: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := j.db.BeginTx(ctx, nil) // hold the write lock
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Writable(ctx); err == nil {
		t.Error("a journal whose write lock another writer holds reported writable")
	}
	_ = tx.Rollback()
	if err := other.Writable(ctx); err != nil {
		t.Errorf("after the lock is released: %v", err)
	}
	j.Close()
	if err := j.Writable(ctx); err == nil {
		t.Error("a closed journal reported writable")
	}
}
