package chain

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"
)

// submissions are the bundles one SendBundle call sent: each with its own
// tip transaction, and what the engine made of the current one (the last).
// Not safe for concurrent use.
type submissions struct {
	jito   *jitoClient
	book   *tipBook
	tipFn  TipFunc
	limit  uint64 // the tip policy's cap
	txs    []Signed
	log    *slog.Logger
	report BundleReport
	tips   []Signed  // tip transactions, parallel to report.Tips
	sentAt time.Time // when the current bundle was accepted
	// rejected: the engine refused the current bundle outright.
	rejected bool
	// checked: the current bundle's landing was cross-checked with the engine.
	checked bool
	// frozen: no more submissions (a blockhash expired, or no tip can be made).
	frozen bool
}

// submit makes a tip transaction of lamports (or a few more, see
// tipBook.pick) and submits a new bundle. A failure to fetch the tip accounts
// leaves the state as it was (retried on the next round); a failure of the
// TipFunc freezes submissions.
func (u *submissions) submit(ctx context.Context, lamports uint64) error {
	bh := u.txs[0].Blockhash
	acct, lamports, err := u.book.pick(ctx, lamports, u.limit, bh)
	if err != nil {
		return fmt.Errorf("tip accounts: %w", err)
	}
	tx, err := u.tipFn(ctx, acct, lamports, bh)
	if err == nil {
		err = checkTip(tx, acct, lamports, bh)
	}
	if err != nil {
		u.frozen = true
		return fmt.Errorf("tip transaction: %w", err)
	}
	id := BundleID(append(signatures(u.txs), tx.Signature))
	u.tips = append(u.tips, tx)
	u.report.Tips = append(u.report.Tips, TipAttempt{Signature: tx.Signature, Account: acct, Lamports: lamports, BundleID: id})
	u.rejected, u.checked = false, false
	u.send(ctx)
	return nil
}

// send submits the current bundle to the engine; once it is accepted, the
// tip accounts are refreshed if they are old.
func (u *submissions) send(ctx context.Context) {
	cur := &u.report.Tips[len(u.report.Tips)-1]
	raws := make([][]byte, 0, len(u.txs)+1)
	for _, s := range u.txs {
		raws = append(raws, s.Raw)
	}
	raws = append(raws, u.tips[len(u.tips)-1].Raw)
	id, err := u.jito.sendBundle(ctx, raws)
	if err != nil {
		u.rejected = !Retryable(err)
		u.log.Warn("bundle not accepted", "bundle", cur.BundleID, "tip", cur.Lamports, "rejected", u.rejected, "err", err)
		return
	}
	if id != cur.BundleID {
		u.log.Error("engine's bundle id differs from ours", "bundle", cur.BundleID, "engine_bundle", id)
		cur.BundleID = id
	}
	cur.Accepted, u.sentAt = true, time.Now()
	u.log.Debug("bundle accepted", "bundle", id, "tip", cur.Lamports, "transactions", len(raws))
	u.book.refreshIfOld()
}

// crossCheck compares, once, the engine's record of a landed bundle with
// our signatures; a difference is logged (our RPC remains the judge).
func (u *submissions) crossCheck(ctx context.Context, id string) {
	if u.checked {
		return
	}
	lb, err := u.jito.bundleStatus(ctx, id)
	if err != nil || lb == nil {
		return // not yet in the engine's status history; ask again next round
	}
	u.checked = true
	want := make([]string, 0, len(u.txs)+1)
	for _, s := range append(signatures(u.txs), u.tips[len(u.tips)-1].Signature) {
		want = append(want, s.String())
	}
	if !slices.Equal(want, lb.Transactions) {
		u.log.Error("engine reports different transactions for our bundle", "bundle", id, "ours", want, "engine", lb.Transactions)
	}
}
