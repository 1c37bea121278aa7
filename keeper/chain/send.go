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
// intervals doubling up to PollInterval (see pollBackoff).
func (sn *sender) landOne(ctx context.Context, s Signed) (TxResult, error) {
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	wake := sn.sigs.watch(wctx, s.Signature)
	w := sn.confirm.newExpiryWatch(s)
	rejected := sn.broadcast(ctx, s)
	poll := newPollBackoff(sn.poll)
	defer poll.stop()
	again := time.NewTicker(sn.rebroadcast)
	defer again.Stop()
	for {
		select {
		case <-ctx.Done():
			return TxResult{Signature: s.Signature, State: TxPending}, fmt.Errorf("%s not settled: %w", s.Signature, ctx.Err())
		case <-again.C:
			if rejected == nil {
				rejected = sn.broadcast(ctx, s)
			}
			continue
		case st := <-wake:
			wake = nil
			sn.confirm.reads.saw(st.Slot)
			if r, ok := fromStatus(st, sn.confirm.reads.commitment); ok {
				return r, nil
			}
		case <-poll.c():
			poll.next()
		}
		if r, done := sn.checkOne(ctx, s, w); done {
			if r.State == TxExpired {
				r.Err = rejected
			}
			return r, nil
		}
	}
}

// checkOne polls s once; done is true when its fate is proven.
func (sn *sender) checkOne(ctx context.Context, s Signed, w *expiryWatch) (TxResult, bool) {
	sigs := []solana.Signature{s.Signature}
	st, err := sn.confirm.statuses(ctx, sigs, false)
	if err != nil {
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
	var got solana.Signature
	err := sn.pool.call(ctx, "sendTransaction", func(ctx context.Context, ep *endpoint) error {
		var err error
		got, err = ep.rpc.SendRawTransactionWithOpts(ctx, s.Raw, rpc.TransactionOpts{SkipPreflight: true, MaxRetries: &zero})
		return err
	})
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
