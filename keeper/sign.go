package keeper

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/signer"
)

// guardAndSign decodes, guards and signs every built transaction from
// index first on (the earlier ones landed in earlier attempts), then
// simulates what can be simulated now and checks the wallet's outflows
// against the plan's bounds (see simulateAnswer). Any refusal settles the
// attempt as refused; ok is false then and out says what happened.
func (k *Keeper) guardAndSign(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, txs []built, first int) (signed signedSet, out Outcome, ok bool) {
	signed.first = first
	for i := first; i < len(txs); i++ {
		tx, err := txs[i].decode()
		if err != nil {
			return signed, k.refuse(ctx, log, p, att, "malformed-transaction", fmt.Sprintf("transaction %d: %v", i, err)), false
		}
		signed.decoded = append(signed.decoded, tx)
	}
	// The static guard checks each transaction's rules and the bounds over
	// the whole sequence (fees, tips, rent and tokens add up).
	all, err := k.signer.SignSequence(signed.decoded, p.Kind, p.Bounds)
	if err != nil {
		i := first
		if sr, ok := errors.AsType[*signer.SequenceRefusal](err); ok {
			i += sr.Index
		}
		return signed, k.refusal(ctx, log, p, att, i, err), false
	}
	for _, s := range all {
		signed.txs = append(signed.txs, chain.Signed{Raw: s.Wire, Signature: s.TxID, Blockhash: s.Blockhash})
	}
	signed.total = signer.Outflows{Tokens: map[string]int64{}}
	if out, ok := k.simulateAnswer(ctx, log, p, att, &signed); !ok {
		return signed, out, false
	}
	return signed, "", true
}

// signedSet is an attempt's signed transactions, in landing order, with the
// fee each costs as simulated.
type signedSet struct {
	txs     []chain.Signed
	decoded []*signer.Tx
	fees    []uint64
	// first is the index in the market's answer of txs[0]: an RPC sequence
	// continues after the transactions earlier attempts landed.
	first int
	// simulated counts the transactions, from txs[0], already simulated
	// on the state their predecessors leave.
	simulated int
	// total is the wallet's outflows over the simulated transactions.
	total signer.Outflows
}

// refusal settles the attempt as refused by the guard's rule.
func (k *Keeper) refusal(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, tx int, err error) Outcome {
	var r *signer.Refusal
	if errors.As(err, &r) {
		return k.refuse(ctx, log, p, att, string(r.Rule), fmt.Sprintf("transaction %d: %s", tx, r.Error()))
	}
	return k.refuse(ctx, log, p, att, "sign-error", fmt.Sprintf("transaction %d: %v", tx, err))
}

func (k *Keeper) refuse(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, rule, detail string) Outcome {
	k.metrics.GuardRefusals.WithLabelValues(rule).Inc()
	log.Error("Refused to sign", "rule", rule, "detail", detail)
	return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateRefused, Rule: rule, Detail: detail})
}

// addOutflows adds o's outflows (never its inflows) to total.
func addOutflows(total *signer.Outflows, o signer.Outflows) {
	total.Lamports += max(0, o.Lamports)
	for mint, v := range o.Tokens {
		total.Tokens[mint] += max(0, v)
	}
}

// outflows converts the chain's outflows to the guard's form.
func outflows(o chain.Outflows) signer.Outflows {
	out := signer.Outflows{Lamports: o.Lamports, Tokens: make(map[string]int64, len(o.Tokens))}
	for mint, v := range o.Tokens {
		out.Tokens[mint.String()] = v
	}
	return out
}

// signedRecords is the journal form of signed transactions.
func signedRecords(txs []chain.Signed) []journal.SignedTx {
	out := make([]journal.SignedTx, len(txs))
	for i, t := range txs {
		out[i] = journal.SignedTx{Signature: t.Signature.String(), Blockhash: t.Blockhash.String(), Transaction: encodeBase64(t.Raw)}
	}
	return out
}
