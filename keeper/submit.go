package keeper

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/internal/failpoint"
	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
)

// submit lands signed transactions by the plan's mode and settles the
// attempt from what the chain says.
func (k *Keeper) submit(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, set signedSet) Outcome {
	var res chain.Result
	var err error
	if p.Submit.Mode != journal.ModeBundle && len(set.txs) > 1 {
		return k.submitSequence(ctx, log, p, att, set)
	}
	if p.Submit.Mode == journal.ModeBundle {
		res, err = k.submitter.SendBundle(ctx, set.txs, k.tipFunc(p, att), k.tipPolicy(p))
	} else {
		res, err = k.submitter.SendAndConfirm(ctx, set.txs)
	}
	failpoint.Hit(failpoint.AfterConfirm)
	if res.Outcome == chain.OutcomeRefused && errors.Is(err, errTipNotJournaled) {
		// Nothing was sent: the bundle never went out without its first tip.
		log.Error("Cannot journal the tip transaction; nothing sent", "err", err)
		return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateExpired, Rule: "journal", Detail: err.Error()})
	}
	if err != nil && res.Outcome == chain.OutcomeUnknown {
		log.Warn("Submission did not settle; the journal keeps it for recovery", "err", err)
		k.count(p, OutcomePending)
		return OutcomePending
	}
	return k.record(ctx, log, p, att, res, set.fees)
}

// record settles an attempt from a submission result.
func (k *Keeper) record(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, res chain.Result, fees []uint64) Outcome {
	fee, tip := resultCosts(res, fees)
	switch res.Outcome {
	case chain.OutcomeLanded:
		log.Info("Action landed", "reason", p.Reason, "signatures", signatures(res), "route", res.Route.String())
		return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateLanded, FeeLamports: fee, TipLamports: tip})
	case chain.OutcomeExpired:
		log.Warn("Transactions expired without landing; a new attempt is safe", "signatures", signatures(res), "note", res.Note)
		return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateExpired, Rule: "blockhash-expired", TipLamports: tip})
	case chain.OutcomeRefused:
		log.Error("Bundle refused before anything was sent", "note", res.Note)
		return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateFailed, Rule: "bundle-refused", Detail: res.Note})
	case chain.OutcomeFailed, chain.OutcomePartial:
		detail := fmt.Sprintf("%s: %s", res.Outcome, txErrors(res))
		log.Error("Action failed on chain", "detail", detail, "signatures", signatures(res))
		return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateFailed, Rule: "chain-" + res.Outcome.String(),
			Detail: detail, FeeLamports: fee, TipLamports: tip})
	}
	log.Warn("Submission outcome unknown; the journal keeps it for recovery", "note", res.Note)
	k.count(p, OutcomePending)
	return OutcomePending
}

// errTipNotJournaled marks a tip transaction that was signed but could not
// be journaled, so it was not handed to the chain.
var errTipNotJournaled = errors.New("tip transaction not journaled; not sending it")

// tipFunc builds and signs keeper's own Jito tip transaction through the
// guard, and journals it for attempt att before the chain may send it.
func (k *Keeper) tipFunc(p Plan, att journal.Attempt) chain.TipFunc {
	maxTip := k.tipPolicy(p).Cap
	return func(ctx context.Context, account solana.PublicKey, lamports uint64, blockhash solana.Hash) (chain.Signed, error) {
		msg, err := chain.BuildTipMessage(k.wallet, account, lamports, blockhash)
		if err != nil {
			return chain.Signed{}, err
		}
		s, err := k.signer.SignTip(msg, []string{account.String()}, maxTip)
		if err != nil {
			return chain.Signed{}, fmt.Errorf("tip refused: %w", err)
		}
		tip := journal.Tip{Signature: s.TxID.String(), Blockhash: s.Blockhash.String(), Account: account.String(),
			Lamports: lamports, Transaction: encodeBase64(s.Wire)}
		if err := k.journal.RecordTip(ctx, p.ID, att.Number, tip); err != nil {
			return chain.Signed{}, fmt.Errorf("%w: %w", errTipNotJournaled, err)
		}
		return chain.Signed{Raw: s.Wire, Signature: s.TxID, Blockhash: s.Blockhash}, nil
	}
}

// tipPolicy is the config's tip settings, capped by the policy's tip cap.
func (k *Keeper) tipPolicy(p Plan) chain.TipPolicy {
	t := k.cfg.Chain.Tip
	tipCap := t.MaxLamports
	if p.Submit.TipCap > 0 && p.Submit.TipCap < tipCap {
		tipCap = max(p.Submit.TipCap, t.FloorLamports)
	}
	return chain.TipPolicy{Floor: t.FloorLamports, Cap: tipCap, FallbackRPC: t.Fallback == "rpc"}
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
