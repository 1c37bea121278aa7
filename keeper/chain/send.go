package chain

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/keeper-project/keeper/internal/failpoint"
)

// sender lands transactions one by one through RPC: SendURL first, if
// set, then RPCURLs.
type sender struct {
	pool        *pool
	confirm     *confirmer
	sigs        *sigWatcher   // nil: poll alone
	poll        time.Duration // Options.PollInterval
	rebroadcast time.Duration // Options.RebroadcastInterval
	log         *slog.Logger
}

// sendAndConfirm implements [Client.SendAndConfirm].
func (sn *sender) sendAndConfirm(ctx context.Context, txs []Signed) (Result, error) {
	if err := checkAll(txs); err != nil {
		return newResult(txs, RouteRPC), fmt.Errorf("send: %w", err)
	}
	return sn.sendSequential(ctx, txs, RouteRPC)
}

// sendSequential lands checked transactions one by one.
func (sn *sender) sendSequential(ctx context.Context, txs []Signed, route Route) (Result, error) {
	res := newResult(txs, route)
	for i, s := range txs {
		r, err := sn.landOne(ctx, s)
		res.Txs[i] = r
		if err != nil {
			return res, fmt.Errorf("transaction %d of %d: %w", i+1, len(txs), err)
		}
		if r.State != TxLanded {
			break
		}
	}
	res.Outcome = summarize(res.Txs)
	return res, nil
}

// landOne broadcasts s until it is confirmed, fails or provably expires.
// It is settled by the node's notification on the websocket when one
// comes, and meanwhile its status is polled from right after the send, at
// intervals doubling up to PollInterval (see pollBackoff). Polls and
// rebroadcasts run beside the wait, one of each at a time, so a
// notification that comes while one is in flight settles the transaction
// at once rather than after that request's round trip.
func (sn *sender) landOne(ctx context.Context, s Signed) (TxResult, error) {
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	wake := make(chan Status, 1)
	sn.sigs.watch(wctx, s.Signature, wake)
	l := &txWait{sn: sn, s: s, w: sn.confirm.newExpiryWatch(s), checked: make(chan checked, 1), sent: make(chan error, 1)}
	l.rejected = sn.broadcast(ctx, s)
	poll := newPollBackoff(sn.poll)
	defer poll.stop()
	again := time.NewTicker(sn.rebroadcast)
	defer again.Stop()
	for {
		select {
		case <-ctx.Done():
			return TxResult{Signature: s.Signature, State: TxPending}, fmt.Errorf("%s not settled: %w", s.Signature, ctx.Err())
		case <-again.C:
			l.rebroadcast(wctx)
		case err := <-l.sent:
			l.resent(err)
		case st := <-wake:
			wake = nil
			sn.confirm.reads.saw(st.Slot)
			if r, ok := fromStatus(st, sn.confirm.reads.commitment); ok {
				return r, nil
			}
			l.check(wctx)
		case <-poll.c():
			poll.next()
			l.check(wctx)
		case c := <-l.checked:
			l.polling = false
			if c.done {
				return l.result(c.r), nil
			}
		}
	}
}

// txWait is the state of one landOne wait: the poll and the
// rebroadcast it has in flight, if any, and the node's terminal rejection.
type txWait struct {
	sn               *sender
	s                Signed
	w                *expiryWatch // used by one poll at a time
	checked          chan checked // the answer of the poll in flight
	sent             chan error   // the answer of the rebroadcast in flight
	polling, sending bool
	// rejected is the node's terminal rejection of the transaction's bytes;
	// once set, they are not sent again.
	rejected error
}

// checked is a poll's answer: done when the transaction's fate is proven.
type checked struct {
	r    TxResult
	done bool
}

// check polls the transaction's status in the background, unless a poll is
// already in flight.
func (l *txWait) check(ctx context.Context) {
	if l.polling {
		return
	}
	l.polling = true
	go func() {
		r, done := l.sn.checkOne(ctx, l.s, l.w)
		l.checked <- checked{r: r, done: done}
	}()
}

// rebroadcast sends the bytes again in the background, unless the node
// rejected them or a rebroadcast is in flight.
func (l *txWait) rebroadcast(ctx context.Context) {
	if l.rejected != nil || l.sending {
		return
	}
	l.sending = true
	go func() { l.sent <- l.sn.broadcast(ctx, l.s) }()
}

// resent takes a rebroadcast's answer.
func (l *txWait) resent(err error) {
	l.sending = false
	if l.rejected == nil {
		l.rejected = err
	}
}

// result is a proven fate; an expired transaction carries the node's
// rejection, if any.
func (l *txWait) result(r TxResult) TxResult {
	if r.State == TxExpired {
		r.Err = l.rejected
	}
	return r
}

// checkOne polls s once; done is true when its fate is proven.
func (sn *sender) checkOne(ctx context.Context, s Signed, w *expiryWatch) (TxResult, bool) {
	sigs := []solana.Signature{s.Signature}
	st, err := sn.confirm.statuses(ctx, sigs, false)
	if err != nil {
		if ctx.Err() != nil {
			return TxResult{}, false // settled meanwhile, or given up
		}
		sn.log.Warn("signature status unavailable", "signature", s.Signature, "err", err)
		return TxResult{}, false
	}
	if r, ok := fromStatus(st[0], sn.confirm.reads.commitment); ok {
		return r, true
	}
	if st[0].Found {
		return TxResult{}, false // processed, not yet at the commitment
	}
	_, allGone, err := w.gone(ctx)
	if err != nil {
		sn.log.Warn("blockhash check failed", "signature", s.Signature, "err", err)
		return TxResult{}, false
	}
	if !allGone {
		return TxResult{}, false
	}
	final, ok := sn.confirm.confirmGone(ctx, sigs, w.hashes)
	if !ok {
		return TxResult{}, false
	}
	if r, ok := fromStatus(final[0], sn.confirm.reads.commitment); ok {
		return r, true
	}
	sn.log.Debug("transaction expired without landing", "signature", s.Signature, "blockhash", s.Blockhash)
	return TxResult{Signature: s.Signature, State: TxExpired}, true
}

// broadcast sends s once. It returns the node's error only when the node
// rejected the transaction outright (a terminal error: rebroadcasting the
// same bytes cannot help); retryable errors, "already processed" and
// "blockhash not found" are logged and return nil.
func (sn *sender) broadcast(ctx context.Context, s Signed) error {
	zero := uint(0)
	got, err := callFor(ctx, sn.pool, "sendTransaction", func(ctx context.Context, ep *endpoint) (solana.Signature, error) {
		return ep.rpc.SendRawTransactionWithOpts(ctx, s.Raw, rpc.TransactionOpts{SkipPreflight: true, MaxRetries: &zero})
	})
	if err != nil && ctx.Err() != nil {
		return nil // a rebroadcast given up: the transaction settled meanwhile
	}
	switch classifySend(err) {
	case sendOK:
		failpoint.Hit(failpoint.AfterSend)
		if got != s.Signature {
			sn.log.Warn("node answered a different signature", "signature", s.Signature, "answered", got)
		}
		sn.log.Debug("transaction sent", "signature", s.Signature)
	case sendAlreadyProcessed:
		sn.log.Debug("transaction already processed", "signature", s.Signature)
	case sendBlockhashNotFound:
		sn.log.Debug("node does not know the blockhash yet", "signature", s.Signature, "blockhash", s.Blockhash)
	case sendRetryable:
		sn.log.Warn("send failed, will retry", "signature", s.Signature, "err", err)
	case sendRejected:
		sn.log.Error("node rejected the transaction; watching it until its blockhash expires", "signature", s.Signature, "err", err)
		return err
	}
	return nil
}

// pollBackoff times status polls: the first comes an eighth of the interval
// after the send (at least minPollWait, at most the interval), and each
// later one after twice the wait before it, up to the interval. A
// transaction confirmed in a few slots is then seen a few hundred
// milliseconds after it, not a whole interval later, while a slow one costs
// no more polls than a fixed interval would after the first few.
type pollBackoff struct {
	wait, max time.Duration
	t         *time.Timer
}

// minPollWait is the shortest wait between two polls.
const minPollWait = 50 * time.Millisecond

// newPollBackoff starts the first wait.
func newPollBackoff(interval time.Duration) *pollBackoff {
	p := &pollBackoff{wait: max(interval/8, min(minPollWait, interval)), max: interval}
	p.t = time.NewTimer(p.wait)
	return p
}

// c fires when the current wait is over.
func (p *pollBackoff) c() <-chan time.Time { return p.t.C }

// next starts the next wait, twice the last, at most the interval.
func (p *pollBackoff) next() {
	p.wait = min(2*p.wait, p.max)
	p.t.Reset(p.wait)
}

// stop ends the timer.
func (p *pollBackoff) stop() { p.t.Stop() }
