package journal

import (
	"context"
	"errors"
	"fmt"
)

// errProbe ends the probe transaction of Writable; it never leaves the package.
var errProbe = errors.New("probe")

// Writable reports whether the journal can take a write now: it takes the
// database's write lock and makes a change that it then rolls back, so it
// fails when the database is closed, read-only, or locked by another writer
// for longer than the busy timeout. It writes nothing.
func (j *Journal) Writable(ctx context.Context) error {
	err := j.write(ctx, func(tx dbtx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = version`); err != nil {
			return err
		}
		return errProbe
	})
	if errors.Is(err, errProbe) {
		return nil
	}
	return fmt.Errorf("journal: not writable: %w", err)
}
