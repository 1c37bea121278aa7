package action

import (
	"context"
	"fmt"

	"github.com/keeper-project/keeper/internal/failpoint"
	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
)

// continuesNote ends the detail of a sequence stopped midway.
const continuesNote = "; the next attempt continues from there"

// submitSequence lands the transactions of one answer over RPC in order:
// each is simulated (unsigned, as the first was before the answer was
// signed) right before its own send on the state its predecessors left,
// sent and confirmed before the next. Those later simulations come after
// the signatures are journaled, as every send does. A stop midway settles the attempt as expired
// with which transactions landed, and the next attempt continues from there
// without sending those again.
func (ans *answer) submitSequence(ctx context.Context) Outcome {
	var fee uint64
	for i := range ans.txs {
		if i >= ans.simulated {
			if out, ok := ans.simulateNext(ctx); !ok {
				ans.log.Warn("Sequence stopped before a transaction's send", "tx", ans.first+i, "landed_before", landedRange(ans.first, i), "outcome", out)
				return out
			}
		}
		res, err := ans.e.cfg.Submitter.SendAndConfirm(ctx, ans.txs[i:i+1])
		failpoint.Hit(failpoint.AfterConfirm)
		if err != nil && res.Outcome == chain.OutcomeUnknown {
			return ans.pending("Submission did not settle; the journal keeps it for recovery", "tx", ans.first+i, "err", err)
		}
		if res.Outcome != chain.OutcomeLanded && i == 0 {
			return ans.record(ctx, res, ans.fees[:1])
		}
		stepFee, _ := resultCosts(res, ans.fees[i:i+1])
		fee += stepFee
		if res.Outcome != chain.OutcomeLanded {
			return ans.sequenceStopped(ctx, i, res, fee)
		}
		ans.log.Debug("Sequence transaction landed", "tx", ans.first+i, "signature", ans.txs[i].Signature)
	}
	return ans.settleAnd(ctx, journal.Outcome{State: journal.StateLanded, FeeLamports: fee}, func(after string) {
		ans.log.Info("Action landed", "reason", ans.p.Reason, "after", after, "signatures", ans.sigs,
			"links", ans.e.cfg.Links.Txs(ans.sigs), "route", chain.RouteRPC.String(),
			"transactions", len(ans.txs))
	})
}

// sequenceStopped settles an attempt whose transaction i did not land after
// the ones before it did.
func (ans *answer) sequenceStopped(ctx context.Context, i int, res chain.Result, fee uint64) Outcome {
	why := res.Outcome.String()
	if res.Outcome == chain.OutcomeFailed || res.Outcome == chain.OutcomePartial {
		why += ": " + txErrors(res)
	}
	detail := fmt.Sprintf("%s of %d landed; transaction %d %s"+continuesNote,
		landedRange(ans.first, i), ans.first+len(ans.txs), ans.first+i, why)
	ans.log.Warn("Sequence stopped midway", "detail", detail)
	return ans.settle(ctx, journal.Outcome{State: journal.StateExpired, Rule: journal.RuleSequencePartial, Detail: detail, FeeLamports: fee})
}

// landedRange names the transactions before i of an answer sent from
// index first, by answer index: "no transaction", "transaction 0",
// "transactions 0-2 (earlier attempts)".
func landedRange(first, i int) string {
	if i == 0 && first > 0 {
		return leadingTxs(first) + " (earlier attempts)"
	}
	return leadingTxs(first + i)
}

// leadingTxs names the first n transactions of an answer.
func leadingTxs(n int) string {
	switch n {
	case 0:
		return "no transaction"
	case 1:
		return "transaction 0"
	}
	return fmt.Sprintf("transactions 0-%d", n-1)
}
