package chain

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// submit makes a tip transaction of lamports (or a few more, see
// tipBook.pick) and submits a new bundle. A failure to fetch the tip accounts
// leaves the state as it was (retried on the next round); a failure of the
// TipFunc freezes submissions.
func (b *bundleRun) submit(ctx context.Context, lamports uint64) error {
	bh := b.txs[0].Blockhash
	acct, lamports, err := b.book.pick(ctx, lamports, b.pol.Cap, bh)
	if err != nil {
		return fmt.Errorf("tip accounts: %w", err)
	}
	tx, err := b.tipFn(ctx, acct, lamports, bh)
	if err == nil {
		err = checkTip(tx, acct, lamports, bh)
	}
	if err != nil {
		b.frozen = true
		return fmt.Errorf("tip transaction: %w", err)
	}
	id := BundleID(append(signatures(b.txs), tx.Signature))
	b.tips = append(b.tips, tx)
	b.report.Tips = append(b.report.Tips, TipAttempt{Signature: tx.Signature, Account: acct, Lamports: lamports, BundleID: id})
	b.rejected, b.checked = false, false
	b.send(ctx)
	return nil
}

// send submits the current bundle to the engine; once it is accepted, the
// tip accounts are refreshed if they are old.
func (b *bundleRun) send(ctx context.Context) {
	cur := &b.report.Tips[len(b.report.Tips)-1]
	raws := make([][]byte, 0, len(b.txs)+1)
	for _, s := range b.txs {
		raws = append(raws, s.Raw)
	}
	raws = append(raws, b.tips[len(b.tips)-1].Raw)
	id, err := b.jito.sendBundle(ctx, raws)
	if err != nil {
		b.rejected = !Retryable(err)
		b.s.log.Warn("bundle not accepted", "bundle", cur.BundleID, "tip", cur.Lamports, "rejected", b.rejected, "err", err)
		return
	}
	if id != cur.BundleID {
		b.s.log.Error("engine's bundle id differs from ours", "bundle", cur.BundleID, "engine_bundle", id)
		cur.BundleID = id
	}
	cur.Accepted, b.sentAt = true, time.Now()
	b.s.log.Debug("bundle accepted", "bundle", id, "tip", cur.Lamports, "transactions", len(raws))
	b.book.refreshIfOld()
}

// crossCheck compares, once, the engine's record of a landed bundle with
// our signatures; a difference is logged (our RPC remains the judge).
func (b *bundleRun) crossCheck(ctx context.Context, id string) {
	if b.checked {
		return
	}
	lb, err := b.jito.bundleStatus(ctx, id)
	if err != nil || lb == nil {
		return // not yet in the engine's status history; ask again next round
	}
	b.checked = true
	want := make([]string, 0, len(b.txs)+1)
	for _, s := range append(signatures(b.txs), b.tips[len(b.tips)-1].Signature) {
		want = append(want, s.String())
	}
	if !slices.Equal(want, lb.Transactions) {
		b.s.log.Error("engine reports different transactions for our bundle", "bundle", id, "ours", want, "engine", lb.Transactions)
	}
}
