package action

import (
	"context"
	"errors"
	"fmt"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/signer"
)

// answer is an attempt's transactions, in landing order: unsigned as they
// are simulated, then signed, with the fee each costs as simulated.
type answer struct {
	*attempt
	// unsigned are the wire transactions with our signature slot zero (the
	// market's signatures kept): what simulation sees. Nothing signed by
	// our key is handed to anyone before its signature is journaled.
	unsigned [][]byte
	// txs are the signed transactions, once every check passed.
	txs     []chain.Signed
	decoded []*signer.Tx
	fees    []uint64
	// first is the index in the market's answer of unsigned[0] and txs[0]:
	// an RPC sequence continues after the transactions earlier attempts
	// landed.
	first int
	// simulated counts the transactions, from unsigned[0], already
	// simulated on the state their predecessors leave.
	simulated int
	// total is the wallet's outflows over the simulated transactions.
	total signer.Outflows
}

// sign takes every built transaction from index first on (the earlier ones
// landed in earlier attempts) through the guard before signing: it decodes
// them and runs the static guard (see guard), simulates the unsigned
// transactions that can be simulated now and checks the wallet's outflows
// against the plan's bounds (see answer.simulate), and only then signs
// them. Any refusal settles the attempt as refused, and a simulation that
// cannot run or shows a failure settles it too, with nothing signed; ok is
// false then and out says what happened.
func (a *attempt) sign(ctx context.Context, txs []built, first int) (ans *answer, out Outcome, ok bool) {
	if ans, out, ok = a.guard(ctx, txs, first); !ok {
		return nil, out, false
	}
	if out, ok := ans.simulate(ctx); !ok {
		return nil, out, false
	}
	if out, ok := ans.signAll(ctx); !ok {
		return nil, out, false
	}
	return ans, "", true
}

// guard decodes the built transactions from index first on, runs the
// static guard over them as a sequence (each transaction's rules, and the
// bounds over the whole sequence: fees, tips, rent and tokens add up) and
// makes their unsigned wire forms for simulation. Nothing is signed.
func (a *attempt) guard(ctx context.Context, txs []built, first int) (*answer, Outcome, bool) {
	ans := &answer{attempt: a, first: first, total: signer.Outflows{Tokens: map[string]int64{}}}
	for i := first; i < len(txs); i++ {
		tx, err := txs[i].decode()
		if err != nil {
			return nil, a.refuse(ctx, journal.RuleMalformedTransaction, fmt.Sprintf("transaction %d: %v", i, err)), false
		}
		ans.decoded = append(ans.decoded, tx)
	}
	if err := a.e.cfg.Signer.CheckSequence(ans.decoded, a.p.Kind, a.p.Bounds); err != nil {
		return nil, a.refusal(ctx, refusedIndex(first, err), err), false
	}
	if b := a.route.budget; b != nil && len(ans.decoded) > 0 {
		if err := signer.CheckBudget(ans.decoded[0], *b, !a.e.cfg.Priority.SetupAnywhere && !a.route.own); err != nil {
			return nil, a.refusal(ctx, first, err), false
		}
	}
	for i, tx := range ans.decoded {
		raw, err := a.e.cfg.Signer.Unsigned(tx)
		if err != nil {
			return nil, a.refusal(ctx, first+i, err), false
		}
		ans.unsigned = append(ans.unsigned, raw)
	}
	return ans, "", true
}

// signAll signs every transaction of the answer, the guard running again
// over them first; it is called once the simulations now possible passed.
func (ans *answer) signAll(ctx context.Context) (Outcome, bool) {
	all, err := ans.e.cfg.Signer.SignSequence(ans.decoded, ans.p.Kind, ans.p.Bounds)
	if err != nil {
		return ans.refusal(ctx, refusedIndex(ans.first, err), err), false
	}
	for _, s := range all {
		ans.txs = append(ans.txs, chain.Signed{Raw: s.Wire, Signature: s.TxID, Blockhash: s.Blockhash})
	}
	return "", true
}

// refusedIndex is the answer index of the transaction the guard refused
// in a sequence that starts at answer index first.
func refusedIndex(first int, err error) int {
	if sr, ok := errors.AsType[*signer.SequenceRefusal](err); ok {
		return first + sr.Index
	}
	return first
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
