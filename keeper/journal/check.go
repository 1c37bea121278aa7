package journal

import (
	"context"
	"fmt"
)

// updateCheck sets a landed action's detail (see RecordCheck).
var updateCheck = stmt(`UPDATE actions SET detail = ?, updated_at = ? WHERE id = ? AND state = ?`)

// RecordCheck journals what a read of a landed action's target found after
// it landed ("health 0.138 → 0.301") as the action's detail. It changes no
// state; an action that is not landed is refused with ErrConflict. It
// commits lazily: a lost check loses only the sentence.
func (j *Journal) RecordCheck(ctx context.Context, id, detail string) (err error) {
	defer wrap(&err, "record check %q", id)
	return j.write(ctx, lazy, func(tx dbtx) error {
		res, err := tx.ExecContext(ctx, updateCheck, detail, j.stamp(), id, string(StateLanded))
		if err != nil {
			return fmt.Errorf("update action: %w", err)
		}
		return expectOne(res, id)
	})
}
