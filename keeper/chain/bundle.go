package chain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gagliardetto/solana-go"
)

// SendBundle lands the market's transactions as one atomic Jito bundle, in
// array order, with keeper's tip transaction (made by tip) appended last.
//
// The tip starts at pol.Floor. A tip transaction is never made twice: when
// this client already made a tip of those lamports with that blockhash,
// another tip account is paid, or, all of them taken, a lamport more (never
// above pol.Cap). While the blockhashes are valid, a bundle the
// engine reports Failed, or that is neither landed nor failed RaiseAfter
// after it was accepted, counts as dropped and is resubmitted with the same
// market transactions and a new tip transaction raised per the policy, never
// above pol.Cap. Landing is judged by our own RPC's signature statuses, not
// by the engine: the outcome is OutcomeLanded when every market transaction
// reached the commitment, OutcomeExpired when none landed and every
// blockhash provably expired.
//
// Four market transactions at most fit beside the tip. With more, or when a
// bundle at the cap is dropped again, pol.FallbackRPC decides: send them
// one by one through RPC (Route RPCFallback, atomicity lost; the same bytes,
// so a late bundle and the RPC sends can never both execute) or refuse
// (OutcomeRefused with ErrBundleFull when nothing was sent; otherwise keep
// resubmitting at the cap until expiry). The error is non-nil only for
// unusable input (nothing sent), a first tip transaction that could not be
// made (nothing sent) or a context that ended first (OutcomeUnknown).
func (c *Client) SendBundle(ctx context.Context, txs []Signed, tip TipFunc, pol TipPolicy) (Result, error) {
	res := newResult(txs, RouteBundle)
	pol, err := pol.normalized()
	switch {
	case c.jito == nil:
		err = errors.New("no jito url configured")
	case tip == nil:
		err = errors.New("no tip function")
	case err == nil:
		err = checkAll(txs)
	}
	if err != nil {
		return res, fmt.Errorf("send bundle: %w", err)
	}
	if len(txs) >= MaxBundleTxs {
		return c.fullBundle(ctx, txs, pol)
	}
	b := &bundleRun{c: c, txs: txs, tipFn: tip, pol: pol, report: BundleReport{LandedTip: -1}}
	b.watch = c.newExpiryWatch(hashesOf(txs))
	if res, done, err := b.first(ctx); done {
		return res, err
	}
	return b.run(ctx)
}

// fullBundle handles market transactions that leave no room for the tip.
func (c *Client) fullBundle(ctx context.Context, txs []Signed, pol TipPolicy) (Result, error) {
	why := fmt.Sprintf("%d market transactions leave no room in a bundle for the tip transaction", len(txs))
	if !pol.FallbackRPC {
		res := newResult(txs, RouteBundle)
		res.Outcome, res.Note = OutcomeRefused, why+"; refused by the tip policy"
		return res, ErrBundleFull
	}
	c.log.Info("bundle full, sending through rpc one by one", "transactions", len(txs))
	res, err := c.sendSequential(ctx, txs, RouteRPCFallback)
	res.Note = why + "; sent through rpc one by one"
	return res, err
}

// bundleRun is the state of one SendBundle call. Not safe for concurrent use.
type bundleRun struct {
	c      *Client
	txs    []Signed
	tipFn  TipFunc
	pol    TipPolicy
	watch  *expiryWatch
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

// run watches the bundle until its fate is proven or ctx ends: the node's
// notification for its first market transaction (the bundle lands whole or
// not at all) wakes it at once, and meanwhile it polls from right after the
// send at intervals doubling up to PollInterval, as a single transaction
// is (see landOne).
func (b *bundleRun) run(ctx context.Context) (Result, error) {
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	wake := b.c.sigs.watch(wctx, b.txs[0].Signature)
	poll := newPollBackoff(b.c.opts.PollInterval)
	defer poll.stop()
	for {
		select {
		case <-ctx.Done():
			return b.result(OutcomeUnknown, nil), fmt.Errorf("bundle not settled: %w", ctx.Err())
		case <-wake:
			wake = nil // the statuses read of the step settles it
		case <-poll.c():
			poll.next()
		}
		if res, done, err := b.step(ctx); done {
			return res, err
		}
	}
}

// step makes one round: statuses, expiry, then the engine's view. A failed
// status or blockhash check does not stop the round: the engine is still
// watched (resubmitting a bundle that already landed is harmless, it fails
// atomically).
func (b *bundleRun) step(ctx context.Context) (Result, bool, error) {
	st, err := b.c.statuses(ctx, b.sigs(), false)
	if err != nil {
		b.c.log.Warn("signature status unavailable", "err", err)
	} else if out, ok := b.settled(st); ok {
		return b.result(out, st), true, nil
	}
	anyGone, allGone, err := b.watch.gone(ctx)
	if err != nil {
		b.c.log.Warn("blockhash check failed", "err", err)
		anyGone, allGone = false, false
	}
	if allGone {
		return b.finish(ctx)
	}
	if anyGone {
		b.frozen = true // a member expired: no bundle of these can land now
	}
	landing := st != nil && slices.ContainsFunc(st[:len(b.txs)], func(s Status) bool { return s.Found })
	if b.frozen || landing {
		return Result{}, false, nil
	}
	return b.watchBundle(ctx)
}

// settled reports the outcome once every market transaction reached the
// commitment, or one failed.
func (b *bundleRun) settled(st []Status) (Outcome, bool) {
	all := true
	for _, s := range st[:len(b.txs)] {
		if s.Reached(b.c.commitment) && s.Err != nil {
			return OutcomeFailed, true
		}
		all = all && s.Reached(b.c.commitment)
	}
	return OutcomeLanded, all
}

// finish runs the final check once every blockhash looked gone.
func (b *bundleRun) finish(ctx context.Context) (Result, bool, error) {
	final, ok := b.c.confirmGone(ctx, b.sigs(), b.watch.hashes)
	if !ok {
		return Result{}, false, nil
	}
	if out, ok := b.settled(final); ok {
		return b.result(out, final), true, nil
	}
	out := OutcomeExpired
	if slices.ContainsFunc(final[:len(b.txs)], func(s Status) bool { return s.Found }) {
		out = OutcomePartial // not atomic after all: someone sent a member alone
	}
	return b.result(out, final), true, nil
}

// first makes the first submission. A TipFunc failure ends SendBundle with
// OutcomeRefused (nothing was sent); a failure to fetch the tip accounts is
// retried on the next rounds.
func (b *bundleRun) first(ctx context.Context) (Result, bool, error) {
	err := b.submitNew(ctx, b.pol.Floor)
	switch {
	case err == nil:
		return Result{}, false, nil
	case b.frozen:
		res := newResult(b.txs, RouteBundle)
		res.Outcome, res.Bundle, res.Note = OutcomeRefused, &b.report, "no tip transaction could be made"
		return res, true, fmt.Errorf("send bundle: %w", err)
	}
	b.c.log.Warn("no bundle sent yet, will retry", "err", err)
	return Result{}, false, nil
}

// watchBundle asks the engine about the current bundle and resubmits or
// raises the tip as needed.
func (b *bundleRun) watchBundle(ctx context.Context) (Result, bool, error) {
	if len(b.report.Tips) == 0 {
		return b.first(ctx)
	}
	cur := &b.report.Tips[len(b.report.Tips)-1]
	if !cur.Accepted {
		if b.rejected {
			return b.dropped(ctx)
		}
		b.send(ctx)
		return Result{}, false, nil
	}
	sts, err := b.c.jito.inflightStatuses(ctx, []string{cur.BundleID})
	if err != nil {
		b.c.log.Warn("bundle status unavailable", "bundle", cur.BundleID, "err", err)
		return Result{}, false, nil
	}
	switch sts[cur.BundleID].Status {
	case bundleLanded:
		b.crossCheck(ctx, cur.BundleID)
		return Result{}, false, nil // our RPC decides
	case bundleFailed:
		return b.dropped(ctx)
	}
	if time.Since(b.sentAt) < b.pol.RaiseAfter {
		return Result{}, false, nil
	}
	return b.dropped(ctx)
}

// dropped resubmits with a raised tip, or falls back to RPC at the cap when
// the policy allows.
func (b *bundleRun) dropped(ctx context.Context) (Result, bool, error) {
	cur := b.report.Tips[len(b.report.Tips)-1]
	if cur.Lamports >= b.pol.Cap && b.pol.FallbackRPC {
		b.c.log.Info("bundle dropped at the tip cap, sending through rpc one by one", "bundle", cur.BundleID, "tip", cur.Lamports)
		res, err := b.c.sendSequential(ctx, b.txs, RouteRPCFallback)
		b.noteLandedTip(ctx)
		res.Bundle, res.Note = &b.report, "bundle dropped at the tip cap; sent through rpc one by one"
		return res, true, err
	}
	next := b.pol.next(cur.Lamports)
	b.c.log.Warn("bundle dropped, resubmitting", "bundle", cur.BundleID, "tip", cur.Lamports, "next_tip", next)
	if next == cur.Lamports { // at the cap: the same bundle again
		b.report.Tips[len(b.report.Tips)-1].Accepted, b.rejected = false, false
		b.send(ctx)
		return Result{}, false, nil
	}
	if err := b.submitNew(ctx, next); err != nil {
		b.c.log.Error("no new tip transaction; watching the bundles already sent", "err", err)
	}
	return Result{}, false, nil
}

// submitNew makes a tip transaction of lamports (or a few more, see
// pickTip) and submits a new bundle. A failure to fetch the tip accounts
// leaves the state as it was (retried on the next round); a failure of the
// TipFunc freezes submissions.
func (b *bundleRun) submitNew(ctx context.Context, lamports uint64) error {
	bh := b.txs[0].Blockhash
	acct, lamports, err := b.c.pickTip(ctx, lamports, b.pol.Cap, bh)
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

// send submits the current bundle to the engine.
func (b *bundleRun) send(ctx context.Context) {
	cur := &b.report.Tips[len(b.report.Tips)-1]
	raws := make([][]byte, 0, len(b.txs)+1)
	for _, s := range b.txs {
		raws = append(raws, s.Raw)
	}
	raws = append(raws, b.tips[len(b.tips)-1].Raw)
	id, err := b.c.jito.sendBundle(ctx, raws)
	if err != nil {
		b.rejected = !Retryable(err)
		b.c.log.Warn("bundle not accepted", "bundle", cur.BundleID, "tip", cur.Lamports, "rejected", b.rejected, "err", err)
		return
	}
	if id != cur.BundleID {
		b.c.log.Error("engine's bundle id differs from ours", "bundle", cur.BundleID, "engine_bundle", id)
		cur.BundleID = id
	}
	cur.Accepted, b.sentAt = true, time.Now()
	b.c.log.Debug("bundle accepted", "bundle", id, "tip", cur.Lamports, "transactions", len(raws))
}

// crossCheck compares, once, the engine's record of a landed bundle with
// our signatures; a difference is logged (our RPC remains the judge).
func (b *bundleRun) crossCheck(ctx context.Context, id string) {
	if b.checked {
		return
	}
	lb, err := b.c.jito.bundleStatus(ctx, id)
	if err != nil || lb == nil {
		return // not yet in the engine's status history; ask again next round
	}
	b.checked = true
	want := make([]string, 0, len(b.txs)+1)
	for _, s := range append(signatures(b.txs), b.tips[len(b.tips)-1].Signature) {
		want = append(want, s.String())
	}
	if !slices.Equal(want, lb.Transactions) {
		b.c.log.Error("engine reports different transactions for our bundle", "bundle", id, "ours", want, "engine", lb.Transactions)
	}
}

// noteLandedTip records which tip transaction, if any, has landed.
func (b *bundleRun) noteLandedTip(ctx context.Context) {
	st, err := b.c.statuses(ctx, signatures(b.tips), true)
	if err != nil {
		b.c.log.Warn("tip status unavailable", "err", err)
		return
	}
	for j, s := range st {
		if s.Reached(b.c.commitment) {
			b.report.LandedTip = j
		}
	}
}

// sigs returns the market transactions' signatures, then the tips'.
func (b *bundleRun) sigs() []solana.Signature {
	return append(signatures(b.txs), signatures(b.tips)...)
}

// result builds the Result from final or current statuses (nil: none).
func (b *bundleRun) result(out Outcome, st []Status) Result {
	res := newResult(b.txs, RouteBundle)
	res.Outcome, res.Bundle = out, &b.report
	for i := range b.txs {
		res.Txs[i].State = TxPending
		if st == nil {
			continue
		}
		if r, ok := fromStatus(st[i], b.c.commitment); ok {
			res.Txs[i] = r
		} else if out == OutcomeExpired || out == OutcomePartial {
			res.Txs[i].State = TxExpired
		}
	}
	for j := range b.report.Tips {
		if k := len(b.txs) + j; k < len(st) && st[k].Reached(b.c.commitment) {
			b.report.LandedTip = j
		}
	}
	return res
}

// hashesOf returns the transactions' blockhashes.
func hashesOf(txs []Signed) []solana.Hash {
	out := make([]solana.Hash, len(txs))
	for i, s := range txs {
		out[i] = s.Blockhash
	}
	return out
}
