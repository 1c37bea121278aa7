package action

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/internal/failpoint"
	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
)

// submit lands the signed transactions by the plan's mode and settles the
// attempt from what the chain says.
func (ans *answer) submit(ctx context.Context) Outcome {
	var res chain.Result
	var err error
	sub := ans.e.cfg.Submitter
	switch {
	case ans.p.Submit.Mode == journal.ModeBundle:
		res, err = sub.SendBundle(ctx, ans.txs, ans.tipFunc(), ans.tipPolicy())
	case len(ans.txs) > 1:
		return ans.submitSequence(ctx)
	default:
		res, err = sub.SendAndConfirm(ctx, ans.txs)
	}
	failpoint.Hit(failpoint.AfterConfirm)
	if res.Outcome == chain.OutcomeRefused && errors.Is(err, errTipNotJournaled) {
		// Nothing was sent: the bundle never went out without its first tip.
		return ans.notJournaled(ctx, "Cannot journal the tip transaction; nothing sent", err)
	}
	if err != nil && res.Outcome == chain.OutcomeUnknown {
		return ans.pending("Submission did not settle; the journal keeps it for recovery", "err", err)
	}
	return ans.record(ctx, res, ans.fees)
}

// record settles the attempt from a submission result.
func (a *attempt) record(ctx context.Context, res chain.Result, fees []uint64) Outcome {
	fee, tip := resultCosts(res, fees)
	switch res.Outcome {
	case chain.OutcomeLanded:
		return a.settleAnd(ctx, journal.Outcome{State: journal.StateLanded, FeeLamports: fee, TipLamports: tip}, func(after string) {
			a.log.Info("Action landed", "reason", a.p.Reason, "after", after, "signatures", signatures(res),
				"links", a.e.cfg.Links.Txs(signatures(res)), "route", res.Route.String())
		})
	case chain.OutcomeExpired:
		a.log.Warn("Transactions expired without landing; a new attempt is safe", "signatures", signatures(res), "note", res.Note)
		return a.settle(ctx, journal.Outcome{State: journal.StateExpired, Rule: journal.RuleBlockhashExpired, TipLamports: tip})
	case chain.OutcomeRefused:
		a.log.Error("Bundle refused before anything was sent", "note", res.Note)
		return a.settle(ctx, journal.Outcome{State: journal.StateFailed, Rule: journal.RuleBundleRefused, Detail: res.Note})
	case chain.OutcomeFailed, chain.OutcomePartial:
		detail := fmt.Sprintf("%s: %s", res.Outcome, txErrors(res))
		return a.settleAnd(ctx, journal.Outcome{State: journal.StateFailed, Rule: chainRule(res.Outcome),
			Detail: detail, FeeLamports: fee, TipLamports: tip}, func(string) {
			a.log.Error("Action failed on chain", "detail", detail, "signatures", signatures(res),
				"links", a.e.cfg.Links.Txs(signatures(res)))
		})
	}
	return a.pending("Submission outcome unknown; the journal keeps it for recovery", "note", res.Note)
}

// chainRule is the rule of a submission the chain failed.
func chainRule(o chain.Outcome) journal.Rule {
	if o == chain.OutcomePartial {
		return journal.RuleChainPartial
	}
	return journal.RuleChainFailed
}

// tipFunc builds and signs keeper's own Jito tip transaction through the
// guard, and journals it for the attempt before the chain may send it.
func (a *attempt) tipFunc() chain.TipFunc {
	maxTip := a.tipPolicy().Cap
	wallet, sgn, j := a.e.wallet, a.e.cfg.Signer, a.e.cfg.Journal
	return func(ctx context.Context, account solana.PublicKey, lamports uint64, blockhash solana.Hash) (chain.Signed, error) {
		msg, err := chain.BuildTipMessage(wallet, account, lamports, blockhash)
		if err != nil {
			return chain.Signed{}, err
		}
		s, err := sgn.SignTip(msg, []string{account.String()}, maxTip)
		if err != nil {
			return chain.Signed{}, fmt.Errorf("tip refused: %w", err)
		}
		tip := journal.Tip{Signature: s.TxID.String(), Blockhash: s.Blockhash.String(), Account: account.String(),
			Lamports: lamports, Transaction: encodeBase64(s.Wire)}
		if err := j.RecordTip(ctx, a.p.ID, a.att.Number, tip); err != nil {
			return chain.Signed{}, fmt.Errorf("%w: %w", errTipNotJournaled, err)
		}
		return chain.Signed{Raw: s.Wire, Signature: s.TxID, Blockhash: s.Blockhash}, nil
	}
}

// tipPolicy is the config's tip settings, capped by the plan's tip cap.
func (a *attempt) tipPolicy() chain.TipPolicy {
	t := a.e.cfg.Tip
	tipCap := t.Max
	if c := a.p.Submit.TipCap; c > 0 && c < tipCap {
		tipCap = max(c, t.Floor)
	}
	return chain.TipPolicy{Floor: min(max(t.Floor, a.route.tip), tipCap), Cap: tipCap, FallbackRPC: t.FallbackRPC}
}

// resultCosts sums the simulated fees of the transactions that reached the
// chain (a failed one pays its fee too) and the tip paid.
func resultCosts(res chain.Result, fees []uint64) (fee, tip uint64) {
	for i, t := range res.Txs {
		if (t.State == chain.TxLanded || t.State == chain.TxFailed) && i < len(fees) {
			fee += fees[i]
		}
	}
	if b := res.Bundle; b != nil && b.LandedTip >= 0 && b.LandedTip < len(b.Tips) {
		tip = b.Tips[b.LandedTip].Lamports
	}
	return fee, tip
}

func signatures(res chain.Result) []string {
	out := make([]string, len(res.Txs))
	for i, t := range res.Txs {
		out[i] = t.Signature.String()
	}
	return out
}

func txErrors(res chain.Result) string {
	for i, t := range res.Txs {
		if t.Err != nil {
			return fmt.Sprintf("transaction %d (%s): %v", i, t.Signature, t.Err)
		}
	}
	return "no transaction error reported"
}

func encodeBase64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
