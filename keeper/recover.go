package keeper

import (
	"context"
	"fmt"

	"github.com/keeper-project/keeper/keeper/journal"
)

// Recover makes this process the journal's only owner, then settles every
// journaled action that is not final by asking the chain, before the first
// tick (see action.Executor.Recover), and prunes the journal. It never
// builds or signs anything new. A shared journal has no owner lock (its
// leader holds the lease instead): a daemon's leader recovers when it wins
// its term (see leadership), a pass once it has taken the lease.
func (k *Keeper) Recover(ctx context.Context) error {
	if err := k.upkeep.own(); err != nil {
		return err
	}
	return k.upkeep.settle(ctx, k.exec.Recover)
}

// settle settles the journal's unfinished actions from the chain with
// recover (the executor's Recover), keeps the journal gauges, and prunes.
func (u *upkeep) settle(ctx context.Context, recover func(context.Context, []journal.Action)) error {
	pending, err := u.journal.Pending(ctx)
	if err != nil {
		return fmt.Errorf("reading unsettled actions: %w", err)
	}
	u.setJournalGauges(pending)
	recover(ctx, pending)
	u.prune(ctx)
	return nil
}
