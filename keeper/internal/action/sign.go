package action

import (
	"context"
	"errors"
	"fmt"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/signer"
)

// answer is an attempt's signed transactions, in landing order, with the
// fee each costs as simulated.
type answer struct {
	*attempt
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

// sign decodes, guards and signs every built transaction from index first
// on (the earlier ones landed in earlier attempts), then simulates what can
// be simulated now and checks the wallet's outflows against the plan's
// bounds (see answer.simulate). Any refusal settles the attempt as refused;
// ok is false then and out says what happened.
func (a *attempt) sign(ctx context.Context, txs []built, first int) (ans *answer, out Outcome, ok bool) {
	ans = &answer{attempt: a, first: first, total: signer.Outflows{Tokens: map[string]int64{}}}
	for i := first; i < len(txs); i++ {
		tx, err := txs[i].decode()
		if err != nil {
			return nil, a.refuse(ctx, journal.RuleMalformedTransaction, fmt.Sprintf("transaction %d: %v", i, err)), false
		}
		ans.decoded = append(ans.decoded, tx)
	}
	// The static guard checks each transaction's rules and the bounds over
	// the whole sequence (fees, tips, rent and tokens add up).
	all, err := a.e.cfg.Signer.SignSequence(ans.decoded, a.p.Kind, a.p.Bounds)
	if err != nil {
		i := first
		if sr, ok := errors.AsType[*signer.SequenceRefusal](err); ok {
			i += sr.Index
		}
		return nil, a.refusal(ctx, i, err), false
	}
	for _, s := range all {
		ans.txs = append(ans.txs, chain.Signed{Raw: s.Wire, Signature: s.TxID, Blockhash: s.Blockhash})
	}
	if out, ok := ans.simulate(ctx); !ok {
		return nil, out, false
	}
	return ans, "", true
}

// refusal settles the attempt as refused by the guard's rule.
func (a *attempt) refusal(ctx context.Context, tx int, err error) Outcome {
	var r *signer.Refusal
	if errors.As(err, &r) {
		return a.refuse(ctx, journal.Rule(r.Rule), fmt.Sprintf("transaction %d: %s", tx, r.Error()))
	}
	return a.refuse(ctx, journal.RuleSignError, fmt.Sprintf("transaction %d: %v", tx, err))
}

// refuse settles the attempt as refused under rule.
func (a *attempt) refuse(ctx context.Context, rule journal.Rule, detail string) Outcome {
	a.e.cfg.Metrics.GuardRefusals.WithLabelValues(string(rule)).Inc()
	a.log.Error("Refused to sign", "rule", rule, "detail", detail)
	return a.settle(ctx, journal.Outcome{State: journal.StateRefused, Rule: rule, Detail: detail})
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
