package keeper

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/gagliardetto/solana-go"
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
	return settleJournal(ctx, k)
}

// settleJournal settles the journal's unfinished actions from the chain
// and then tells the chain client where keeper's last action landed: the
// recovery of a process that owns the journal and of a leader that won
// its term.
func settleJournal(ctx context.Context, k *Keeper) error {
	if err := k.upkeep.settle(ctx, k.exec.Recover); err != nil {
		return err
	}
	rememberLastLanding(ctx, k.journal, k.submitter, k.logger)
	k.exec.TrackProposals(ctx)
	return nil
}

// rememberLastLanding asks the chain about the newest landed action's
// transactions, so that the chain client, which keeps every later read and
// simulation at or above each landing slot it sees (minContextSlot), does
// not let this new process read the chain older than keeper's own last
// action from a lagging node. Best effort: without an answer the first
// reads are not bounded, as the previous process's first reads were not.
func rememberLastLanding(ctx context.Context, j historyReader, s Submitter, log *slog.Logger) {
	landed, err := j.List(ctx, journal.Filter{States: []journal.State{journal.StateLanded}, Limit: 1})
	if err != nil || len(landed) == 0 {
		return
	}
	var sigs []solana.Signature
	for _, at := range landed[0].Attempts {
		for _, tx := range at.Signatures {
			if sig, err := solana.SignatureFromBase58(tx.Signature); err == nil {
				sigs = append(sigs, sig)
			}
		}
	}
	if len(sigs) == 0 {
		return
	}
	if _, err := s.Statuses(ctx, sigs); err != nil {
		log.Debug("Could not ask where the last landed action landed", "action", landed[0].ID, "err", err)
	}
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
