package keeper

import (
	"context"
	"fmt"
)

// Recover makes this process the journal's only owner, then settles every
// journaled action that is not final by asking the chain, before the first
// tick (see action.Executor.Recover), and prunes the journal. It never
// builds or signs anything new. On a shared journal the leader recovers
// when it wins its term (see leadership), not here.
func (k *Keeper) Recover(ctx context.Context) error {
	if err := k.upkeep.own(); err != nil {
		return err
	}
	return k.settleJournal(ctx)
}

// settleJournal settles the journal's unfinished actions from the chain
// and prunes it.
func (k *Keeper) settleJournal(ctx context.Context) error {
	pending, err := k.journal.Pending(ctx)
	if err != nil {
		return fmt.Errorf("reading unsettled actions: %w", err)
	}
	k.upkeep.setJournalGauges(pending)
	k.exec.Recover(ctx, pending)
	k.upkeep.prune(ctx)
	return nil
}
