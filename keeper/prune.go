package keeper

import (
	"context"
	"time"
)

// pruneInterval is how often the daemon prunes the journal.
const pruneInterval = time.Hour

// journalPruner is a journal that can delete final actions older than a cutoff (see
// journal.Journal.Prune).
type journalPruner interface {
	Prune(ctx context.Context, cutoff time.Time) (int, error)
}

// prune deletes the final actions that settled longer ago than journal.retention; unsettled and
// expired actions are never pruned. A failure is logged and tried again at the next interval.
func (k *Keeper) prune(ctx context.Context) {
	retention := k.cfg.Journal.Retention
	p, ok := k.journal.(journalPruner)
	if retention <= 0 || !ok {
		return
	}
	n, err := p.Prune(ctx, k.now().Add(-retention))
	switch {
	case err != nil:
		k.logger.Warn("Cannot prune the journal", "err", err)
	case n > 0:
		k.logger.Info("Pruned the journal", "actions", n, "settled_before", k.now().Add(-retention).UTC().Format(time.RFC3339))
	}
}
