package chain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// bundler lands transactions as Jito bundles with keeper's tip
// transaction, falling back to the sender when the tip policy allows.
type bundler struct {
	send *sender
	jito *jitoClient // nil: no block engine configured
	tips *tipBook
}

// sendBundle implements [Client.SendBundle].
func (bd *bundler) sendBundle(ctx context.Context, txs []Signed, tip TipFunc, pol TipPolicy) (Result, error) {
	res := newResult(txs, RouteBundle)
	pol, err := pol.normalized()
	switch {
	case bd.jito == nil:
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
		return bd.full(ctx, txs, pol)
	}
	sn := bd.send
	b := &bundleRun{s: sn, commitment: sn.confirm.reads.commitment, txs: txs, pol: pol, watch: sn.confirm.newExpiryWatch(txs...),
		jito: bd.jito, book: bd.tips, tipFn: tip, report: BundleReport{LandedTip: -1}}
	if res, done, err := b.first(ctx); done {
		return res, err
	}
	return b.run(ctx)
}

// full handles market transactions that leave no room for the tip.
func (bd *bundler) full(ctx context.Context, txs []Signed, pol TipPolicy) (Result, error) {
	why := fmt.Sprintf("%d market transactions leave no room in a bundle for the tip transaction", len(txs))
	if !pol.FallbackRPC {
		res := newResult(txs, RouteBundle)
		res.Outcome, res.Note = OutcomeRefused, why+"; refused by the tip policy"
		return res, ErrBundleFull
	}
	bd.send.log.Info("bundle full, sending through rpc one by one", "transactions", len(txs))
	res, err := bd.send.sendSequential(ctx, txs, RouteRPCFallback)
	res.Note = why + "; sent through rpc one by one"
	return res, err
}

// bundleRun is the state of one SendBundle call: it watches the market
// transactions land or expire, decides when to submit again, and keeps the
// bundles it sent, each with its own tip transaction, and what the engine
// made of the current one (the last). Not safe for concurrent use.
type bundleRun struct {
	s          *sender
	commitment rpc.CommitmentType
	txs        []Signed
	pol        TipPolicy
	watch      *expiryWatch
	jito       *jitoClient
	book       *tipBook
	tipFn      TipFunc
	report     BundleReport
	tips       []Signed  // tip transactions, parallel to report.Tips
	sentAt     time.Time // when the current bundle was accepted
	// rejected: the engine refused the current bundle outright.
	rejected bool
	// checked: the current bundle's landing was cross-checked with the engine.
	checked bool
	// frozen: no more submissions (a blockhash expired, or no tip can be made).
	frozen bool
	// fellBack is set once a round starts sending the transactions through
	// RPC one by one (see dropped).
	fellBack atomic.Bool
}

// run watches the bundle until its fate is proven or ctx ends: the node's
// notifications for its transactions and tips settle it at once when they
// prove it landed (see bundleRounds.noted), and the one for its first
// market transaction (the bundle lands whole or not at all) wakes a status
// read otherwise; meanwhile it polls from right after the send at
// intervals doubling up to PollInterval, as a single transaction is (see
// landOne). Rounds run beside the wait (see bundleRounds).
func (b *bundleRun) run(ctx context.Context) (Result, error) {
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	poll := newPollBackoff(b.s.poll)
	defer poll.stop()
	r := newBundleRounds(b)
	defer r.stop()
	notes := newBundleNotes(b.s.sigs)
	notes.watch(wctx, r.sigs)
	for {
		var res Result
		var done bool
		var err error
		select {
		case <-ctx.Done():
			r.stop()
			return b.result(OutcomeUnknown, nil), fmt.Errorf("bundle not settled: %w", ctx.Err())
		case st := <-notes.c:
			res, done, err = r.noted(wctx, notes, st)
		case <-poll.c():
			poll.next()
			r.start(ctx)
		case e := <-r.done:
			res, done, err = r.ended(e)
			notes.watch(wctx, r.sigs) // a tip the round made
		case rd := <-r.reads:
			res, done, err = r.read(ctx, rd)
		}
		if done {
			return res, err
		}
	}
}

// step makes one round: statuses, expiry, then the engine's view. A failed
// status or blockhash check does not stop the round: the engine is still
// watched (resubmitting a bundle that already landed is harmless, it fails
// atomically).
func (b *bundleRun) step(ctx context.Context) (Result, bool, error) {
	st, err := b.s.confirm.statuses(ctx, b.sigs(), false)
	if err != nil {
		b.s.log.Warn("signature status unavailable", "err", err)
	} else if out, ok := b.settled(st); ok {
		return b.result(out, st), true, nil
	}
	anyGone, allGone, err := b.watch.gone(ctx)
	if err != nil {
		b.s.log.Warn("blockhash check failed", "err", err)
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
		if s.Reached(b.commitment) && s.Err != nil {
			return OutcomeFailed, true
		}
		all = all && s.Reached(b.commitment)
	}
	return OutcomeLanded, all
}

// finish runs the final check once every blockhash looked gone.
func (b *bundleRun) finish(ctx context.Context) (Result, bool, error) {
	final, ok := b.s.confirm.confirmGone(ctx, b.sigs(), b.watch.hashes)
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
	err := b.submit(ctx, b.pol.Floor)
	switch {
	case err == nil:
		return Result{}, false, nil
	case b.frozen:
		res := newResult(b.txs, RouteBundle)
		res.Outcome, res.Bundle, res.Note = OutcomeRefused, &b.report, "no tip transaction could be made"
		return res, true, fmt.Errorf("send bundle: %w", err)
	}
	b.s.log.Warn("no bundle sent yet, will retry", "err", err)
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
	sts, err := b.jito.inflightStatuses(ctx, []string{cur.BundleID})
	if err != nil {
		b.s.log.Warn("bundle status unavailable", "bundle", cur.BundleID, "err", err)
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
		b.s.log.Info("bundle dropped at the tip cap, sending through rpc one by one", "bundle", cur.BundleID, "tip", cur.Lamports)
		b.fellBack.Store(true)
		res, err := b.s.sendSequential(ctx, b.txs, RouteRPCFallback)
		b.noteLandedTip(ctx)
		res.Bundle, res.Note = &b.report, "bundle dropped at the tip cap; sent through rpc one by one"
		return res, true, err
	}
	next := b.pol.next(cur.Lamports)
	b.s.log.Warn("bundle dropped, resubmitting", "bundle", cur.BundleID, "tip", cur.Lamports, "next_tip", next)
	if next == cur.Lamports { // at the cap: the same bundle again
		b.report.Tips[len(b.report.Tips)-1].Accepted, b.rejected = false, false
		b.send(ctx)
		return Result{}, false, nil
	}
	if err := b.submit(ctx, next); err != nil {
		b.s.log.Error("no new tip transaction; watching the bundles already sent", "err", err)
	}
	return Result{}, false, nil
}

// noteLandedTip records which tip transaction, if any, has landed.
func (b *bundleRun) noteLandedTip(ctx context.Context) {
	st, err := b.s.confirm.statuses(ctx, signatures(b.tips), true)
	if err != nil {
		b.s.log.Warn("tip status unavailable", "err", err)
		return
	}
	for j, s := range st {
		if s.Reached(b.commitment) {
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
		if r, ok := fromStatus(st[i], b.commitment); ok {
			res.Txs[i] = r
		} else if out == OutcomeExpired || out == OutcomePartial {
			res.Txs[i].State = TxExpired
		}
	}
	for j := range b.report.Tips {
		if k := len(b.txs) + j; k < len(st) && st[k].Reached(b.commitment) {
			b.report.LandedTip = j
		}
	}
	return res
}

// bundleRounds runs a bundleRun's rounds (see bundleRun.step) beside the
// wait for the node's notification, one round at a time, so that a
// notification that comes while a round is in flight is not held behind
// that round's requests: it starts a status read of its own, and when
// that read shows the bundle settled, the round is called off. The run's
// state belongs to the round while one is in flight; the waiting loop
// reads only sigs, the signatures as they were when the last round began.
type bundleRounds struct {
	b      *bundleRun
	sigs   []solana.Signature
	cancel context.CancelFunc // ends the round in flight; nil when none is
	done   chan roundEnd      // the answer of the round in flight
	reads  chan sigRead       // the answer of the notification's status read
}

// sigRead is a status read of sigs.
type sigRead struct {
	sigs []solana.Signature
	st   []Status // nil: the read failed
}

// roundEnd is what a round returned.
type roundEnd struct {
	res  Result
	done bool
	err  error
}

// newBundleRounds returns the rounds of b, none in flight.
func newBundleRounds(b *bundleRun) *bundleRounds {
	return &bundleRounds{b: b, sigs: b.sigs(), done: make(chan roundEnd, 1), reads: make(chan sigRead, 1)}
}

// start begins a round unless one is in flight.
func (r *bundleRounds) start(ctx context.Context) {
	if r.cancel != nil {
		return
	}
	r.sigs = r.b.sigs()
	rctx, cancel := context.WithCancel(ctx)
	r.cancel = cancel
	go func() {
		res, done, err := r.b.step(rctx)
		r.done <- roundEnd{res: res, done: done, err: err}
	}()
}

// ended takes the answer of the round in flight.
func (r *bundleRounds) ended(e roundEnd) (Result, bool, error) {
	r.cancel()
	r.cancel = nil
	r.sigs = r.b.sigs()
	return e.res, e.done, e.err
}

// woken answers the node's notification: a round now, or, while one is in
// flight, a status read beside it.
func (r *bundleRounds) woken(ctx context.Context) {
	if r.cancel == nil {
		r.start(ctx)
		return
	}
	sigs := r.sigs
	go func() {
		st, err := r.b.s.confirm.statuses(ctx, sigs, false)
		if err != nil {
			st = nil // the rounds go on and decide
		}
		r.reads <- sigRead{sigs: sigs, st: st}
	}()
}

// noted takes the node's notification for one of the bundle's signatures.
// When the notifications so far prove that the bundle landed (see
// bundleNotes.landed), the round in flight is called off and the result is
// made from them, without a status read; otherwise the first market
// transaction's notification wakes one (see woken). A round that fell back
// to RPC is left to finish, as in read.
func (r *bundleRounds) noted(ctx context.Context, n *bundleNotes, st Status) (Result, bool, error) {
	n.said[st.Signature] = st
	if sts, ok := n.landed(r.sigs, len(r.b.txs)); ok && !r.b.fellBack.Load() {
		r.stop()
		return r.b.result(OutcomeLanded, sts), true, nil
	}
	if st.Signature == r.b.txs[0].Signature {
		r.woken(ctx)
	}
	return Result{}, false, nil
}

// read takes the notification's status read: when it shows the bundle
// settled, the round in flight is called off and the result made, with a
// new read when that round made another tip transaction meanwhile. A round
// that fell back to RPC is left to finish: its own watch of the
// transactions settles it, with the route it took.
func (r *bundleRounds) read(ctx context.Context, rd sigRead) (Result, bool, error) {
	st := rd.st
	if st == nil || r.b.fellBack.Load() {
		return Result{}, false, nil
	}
	out, ok := r.b.settled(st)
	if !ok {
		return Result{}, false, nil
	}
	r.stop()
	if len(r.b.sigs()) != len(rd.sigs) {
		var err error
		if st, err = r.b.s.confirm.statuses(ctx, r.b.sigs(), false); err != nil {
			return Result{}, false, nil // the next round reads again
		}
		if out, ok = r.b.settled(st); !ok {
			return Result{}, false, nil
		}
	}
	return r.b.result(out, st), true, nil
}

// stop calls off the round in flight, if any, and waits for it to return.
func (r *bundleRounds) stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	<-r.done
	r.cancel = nil
	r.sigs = r.b.sigs()
}

// bundleNotes are the node's notifications (signatureSubscribe, at the
// client's commitment) for a bundle's signatures: its market transactions
// and every tip transaction made for it, each watched once. The waiting
// loop owns it; the watches end with the context they were started with.
type bundleNotes struct {
	watcher  *sigWatcher // nil or without a URL: no notifications
	watching map[solana.Signature]bool
	said     map[solana.Signature]Status
	c        chan Status // every watch's notification
}

// newBundleNotes returns the notifications of w, none watched yet.
func newBundleNotes(w *sigWatcher) *bundleNotes {
	return &bundleNotes{watcher: w, watching: map[solana.Signature]bool{}, said: map[solana.Signature]Status{}, c: make(chan Status)}
}

// watch starts watching each of sigs not watched yet.
func (n *bundleNotes) watch(ctx context.Context, sigs []solana.Signature) {
	for _, s := range sigs {
		if n.watching[s] {
			continue
		}
		n.watching[s] = true
		if !n.watcher.watch(ctx, s, n.c) {
			return // the websocket is off
		}
	}
}

// landed returns the statuses of sigs (the bundle's market transactions,
// the first market of them, then its tips) as the notifications tell them,
// when they prove the bundle landed: every market transaction landed
// without an error, and so did one of the tips, which tells which tip
// paid. Otherwise it reports false, and a status read decides.
func (n *bundleNotes) landed(sigs []solana.Signature, market int) ([]Status, bool) {
	sts := make([]Status, len(sigs))
	paid := false
	for i, s := range sigs {
		st, ok := n.said[s]
		switch {
		case i < market && (!ok || st.Err != nil):
			return nil, false
		case ok && i >= market && st.Err == nil:
			paid = true
		}
		if ok {
			sts[i] = st
		} else {
			sts[i] = Status{Signature: s}
		}
	}
	return sts, paid
}
