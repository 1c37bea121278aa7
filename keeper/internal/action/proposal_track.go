package action

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/internal/failpoint"
	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/squads"
	"github.com/keeper-project/keeper/signer"
)

// TrackProposals follows every open proposal keeper made from the chain,
// journaling each step: seen on chain → approved (who approved) → executed
// by keeper once its permissions include Execute and the time lock passed;
// rejected or cancelled by the members, superseded when a config change
// made it stale before approval, abandoned when its creation never landed.
// An execute transaction is journaled before it is sent and, after a
// crash, sent again as the same bytes until the chain settles it: the
// program executes a proposal once, and keeper never signs a second
// execution while one is journaled. It is called on every pass and on
// start.
func (e *Executor) TrackProposals(ctx context.Context) {
	if !e.tracking.TryLock() {
		return // another run follows them now: two would sign two executions
	}
	defer e.tracking.Unlock()
	open, err := e.cfg.Journal.Proposals(ctx, journal.ProposalFilter{Open: true})
	if err != nil {
		e.cfg.Logger.Error("Cannot read the open proposals", "err", err)
		return
	}
	for _, r := range open {
		log := e.cfg.Logger.With("multisig", r.Multisig, "index", r.Index, "action", ShortID(r.ActionID), "policy", r.Policy)
		if err := e.trackOne(ctx, log, r); err != nil {
			log.Warn("Cannot follow the proposal now; trying again on the next pass", "err", err)
		}
	}
}

// onChain is what the chain holds of one proposal.
type onChain struct {
	ms       *squads.Multisig
	prop     *squads.Proposal // nil: no proposal account
	multisig solana.PublicKey
	// now is the chain's clock (the Clock sysvar's unix_timestamp) when
	// they were read: the time the program measures the time lock by.
	now time.Time
}

// trackOne moves r one or more steps along, as the chain says.
func (e *Executor) trackOne(ctx context.Context, log *slog.Logger, r journal.Proposal) error {
	c, err := e.readProposal(ctx, r)
	if err != nil {
		return err
	}
	if c.prop == nil {
		return e.notOnChain(ctx, log, r)
	}
	if r.State == journal.ProposalProposing {
		if ours, err := e.isOurs(ctx, c.multisig, r); err != nil || !ours {
			if err != nil {
				return err
			}
			return e.notOnChain(ctx, log, r) // another proposer's transaction took the index
		}
		if err := e.step(ctx, c.multisig, r, journal.ProposalUpdate{State: journal.ProposalProposed}); err != nil {
			return err
		}
		r.State = journal.ProposalProposed
	}
	switch c.prop.Status {
	case squads.StatusActive, squads.StatusDraft:
		if r.Index <= c.ms.StaleTransactionIndex {
			log.Warn("The proposal went stale before approval (the multisig's config changed): superseded")
			return e.step(ctx, c.multisig, r, journal.ProposalUpdate{State: journal.ProposalSuperseded, Detail: "stale"})
		}
		return nil
	case squads.StatusRejected:
		log.Warn("The members rejected the proposal; nothing executed", "rejected_by", joinKeys(c.prop.Rejected, ","))
		return e.step(ctx, c.multisig, r, journal.ProposalUpdate{State: journal.ProposalRejected, Detail: "rejected by " + joinKeys(c.prop.Rejected, ",")})
	case squads.StatusCancelled:
		return e.step(ctx, c.multisig, r, journal.ProposalUpdate{State: journal.ProposalCancelled, Detail: "cancelled by " + joinKeys(c.prop.Cancelled, ",")})
	case squads.StatusExecuted, squads.StatusExecuting:
		by := "another member"
		if r.State == journal.ProposalExecuting {
			by = "keeper"
		}
		log.Info("The proposal was executed", "by", by)
		return e.step(ctx, c.multisig, r, journal.ProposalUpdate{State: journal.ProposalExecuted, Detail: "executed by " + by})
	case squads.StatusApproved:
		return e.approved(ctx, log, c, r)
	}
	return fmt.Errorf("proposal status %s unknown", c.prop.Status)
}

// readProposal reads r's multisig and proposal accounts, and the chain's
// clock with them.
func (e *Executor) readProposal(ctx context.Context, r journal.Proposal) (onChain, error) {
	ms, err := solana.PublicKeyFromBase58(r.Multisig)
	if err != nil {
		return onChain{}, fmt.Errorf("journaled multisig %q: %w", r.Multisig, err)
	}
	pk, _ := squads.ProposalPDA(ms, r.Index)
	data, err := e.readAccounts(ctx, "the multisig, the proposal and the clock", ms, pk, solana.SysVarClockPubkey)
	if err != nil {
		return onChain{}, err
	}
	c := onChain{multisig: ms}
	if c.now, err = clockTime(data[2]); err != nil {
		return c, err
	}
	if c.ms, err = squads.DecodeMultisig(data[0]); err != nil {
		return c, err
	}
	if data[1] != nil {
		if c.prop, err = squads.DecodeProposal(data[1]); err != nil {
			return c, err
		}
	}
	return c, nil
}

// notOnChain handles a journaled proposal the chain does not hold: its
// creation is still in flight, or it never landed (its action settled
// otherwise), which abandons it.
func (e *Executor) notOnChain(ctx context.Context, log *slog.Logger, r journal.Proposal) error {
	if r.State != journal.ProposalProposing {
		return fmt.Errorf("the proposal account is gone (closed after settling?)")
	}
	act, err := e.cfg.Journal.Get(ctx, r.ActionID)
	if err != nil {
		return err
	}
	if !act.State.Final() {
		return nil
	}
	log.Info("The proposal's creation never landed; abandoned", "action_state", act.State)
	ms, _ := solana.PublicKeyFromBase58(r.Multisig)
	return e.step(ctx, ms, r, journal.ProposalUpdate{State: journal.ProposalAbandoned, Detail: "creation did not land: " + string(act.State)})
}

// approved journals an approval and executes the proposal when keeper may
// and the time lock passed.
func (e *Executor) approved(ctx context.Context, log *slog.Logger, c onChain, r journal.Proposal) error {
	if r.State == journal.ProposalProposed {
		log.Info("The members approved the proposal", "approved_by", joinKeys(c.prop.Approved, ","), "waited", waited(r, e.cfg.Now()))
		if err := e.step(ctx, c.multisig, r, journal.ProposalUpdate{State: journal.ProposalApproved, Approvers: joinKeys(c.prop.Approved, ",")}); err != nil {
			return err
		}
		r.State = journal.ProposalApproved
	}
	if perm, _ := c.ms.Member(e.wallet); !perm.Has(squads.Execute) {
		log.Info("Approved; keeper may not execute (no Execute permission): a member executes it")
		return nil
	}
	if r.State == journal.ProposalExecuting && r.ExecuteTx != "" {
		return e.resendExecute(ctx, log, c, r)
	}
	unlock := c.prop.Since().Add(time.Duration(c.ms.TimeLock) * time.Second)
	if c.now.Before(unlock) { // the program's clock, not keeper's: they differ by seconds
		log.Info("Approved; waiting for the time lock", "executable_at", unlock)
		return nil
	}
	return e.executeProposal(ctx, log, c, r)
}

// executeProposal signs keeper's execution of r, priced as keeper prices
// its own transactions (see priceExecute), journals it and sends it.
func (e *Executor) executeProposal(ctx context.Context, log *slog.Logger, c onChain, r journal.Proposal) error {
	compose, err := e.executeComposer(ctx, c.multisig, r)
	if err != nil {
		return err
	}
	raw, sim, err := e.simulateExecute(ctx, compose, nil)
	if err != nil {
		return err
	}
	a := e.executeAttempt(log, r)
	budget, err := a.ownBudget(ctx, raw, sim.UnitsConsumed)
	switch {
	case errors.Is(err, ErrAboveCap):
		e.cfg.Metrics.PriceAboveCap.WithLabelValues(r.Policy).Inc()
		log.Error("Not executing: the fee market is above the cap; the proposal stays approved", "err", err)
		return nil
	case err != nil:
		return err
	case budget != nil:
		if raw, sim, err = e.simulateExecute(ctx, compose, budget); err != nil {
			return err
		}
	}
	s, err := e.cfg.Signer.SignProposal(raw, squads.ProgramID, e.unitPriceCap(a.p))
	if err != nil {
		return err
	}
	failpoint.Hit(failpoint.AfterSign)
	if err := e.step(ctx, c.multisig, r, journal.ProposalUpdate{State: journal.ProposalExecuting, ExecuteSig: s.TxID.String(),
		ExecuteTx: base64.StdEncoding.EncodeToString(s.Wire)}); err != nil {
		return fmt.Errorf("not sending the execution: %w", err)
	}
	failpoint.Hit(failpoint.AfterSignatures)
	log.Info("Executing the approved proposal", "signature", s.TxID)
	return e.settleExecute(ctx, log, c.multisig, r, chain.Signed{Raw: s.Wire, Signature: s.TxID, Blockhash: s.Blockhash}, sim.Fee.Total())
}

// simulateExecute composes keeper's execution with budget (nil: none) and
// simulates it unsigned: it must pass and cost keeper no more than its fee.
func (e *Executor) simulateExecute(ctx context.Context, compose func(*signer.Budget) ([]byte, error), budget *signer.Budget) ([]byte, *chain.SimResult, error) {
	raw, err := compose(budget)
	if err != nil {
		return nil, nil, err
	}
	wire, err := e.unsigned(raw)
	if err != nil {
		return nil, nil, err
	}
	sim, err := e.cfg.Submitter.Simulate(ctx, wire, e.wallet)
	if err != nil {
		return nil, nil, fmt.Errorf("the execution does not pass simulation: %w", err)
	}
	if sim.Outflows.Lamports > int64(sim.Fee.Total()) {
		return nil, nil, fmt.Errorf("the execution would cost keeper %d lamports, more than its fee %d", sim.Outflows.Lamports, sim.Fee.Total())
	}
	return raw, sim, nil
}

// executeAttempt is what prices keeper's execution of r: the percentile
// and cap of r's policy as its last proposal planned them (see
// proposalPricing), and the price of the last execution keeper journaled
// for r, which a new one raises.
func (e *Executor) executeAttempt(log *slog.Logger, r journal.Proposal) *attempt {
	p := Plan{ID: r.ActionID, Policy: r.Policy}
	if v, ok := e.proposalPricing.Load(r.Policy); ok {
		pp := v.(proposalPrice)
		p.Submit.Percentile, p.Bounds.MaxComputeUnitPrice = pp.percentile, pp.maxUnitPrice
	}
	pr := &pricing{}
	if tx, err := signer.DecodeWire(r.ExecuteTx); err == nil {
		pr.price = tx.Budget().Price
	}
	return &attempt{e: e, log: log, p: p, pricing: pr}
}

// resendExecute sends the journaled execution again, as the same bytes.
func (e *Executor) resendExecute(ctx context.Context, log *slog.Logger, c onChain, r journal.Proposal) error {
	wire, err := base64.StdEncoding.DecodeString(r.ExecuteTx)
	if err != nil {
		return fmt.Errorf("journaled execution: %w", err)
	}
	sig, err := solana.SignatureFromBase58(r.ExecuteSig)
	if err != nil {
		return fmt.Errorf("journaled execution signature: %w", err)
	}
	var tx solana.Transaction
	if err := tx.UnmarshalWithDecoder(bin.NewBinDecoder(wire)); err != nil {
		return fmt.Errorf("journaled execution: %w", err)
	}
	log.Info("Settling the journaled execution", "signature", sig)
	fee, err := chain.MessageFee(tx.Message)
	if err != nil {
		return fmt.Errorf("journaled execution: %w", err)
	}
	return e.settleExecute(ctx, log, c.multisig, r, chain.Signed{Raw: wire, Signature: sig, Blockhash: tx.Message.RecentBlockhash}, fee.Total())
}

// settleExecute sends a journaled execution until the chain settles it.
// Landed: executed. Expired without landing: back to approved, so that the
// next pass signs a new one, priced higher. Failed: approved still, with
// the error. The fee of one that landed or failed, fee, is journaled on
// the proposal's action.
func (e *Executor) settleExecute(ctx context.Context, log *slog.Logger, ms solana.PublicKey, r journal.Proposal, s chain.Signed, fee uint64) error {
	res, err := e.cfg.Submitter.SendAndConfirm(ctx, []chain.Signed{s})
	failpoint.Hit(failpoint.AfterConfirm)
	paid, _ := resultCosts(res, []uint64{fee})
	switch {
	case err != nil && res.Outcome == chain.OutcomeUnknown:
		return fmt.Errorf("the execution did not settle: %w", err)
	case res.Outcome == chain.OutcomeLanded:
		log.Info("Executed the approved proposal", "signature", s.Signature, "links", e.cfg.Links.Txs([]string{s.Signature.String()}))
		e.cfg.Changed()
		return e.step(ctx, ms, r, journal.ProposalUpdate{State: journal.ProposalExecuted, Detail: "executed by keeper", FeeLamports: paid})
	case res.Outcome == chain.OutcomeExpired:
		return e.step(ctx, ms, r, journal.ProposalUpdate{State: journal.ProposalApproved, Detail: "execution expired; executing again"})
	}
	log.Error("The execution failed on chain", "detail", txErrors(res))
	return e.step(ctx, ms, r, journal.ProposalUpdate{State: journal.ProposalApproved, Detail: "execution failed: " + txErrors(res), FeeLamports: paid})
}

// readVaultTransaction reads the vault transaction at r's index and
// reports whether its message is the one keeper journaled for r.
func (e *Executor) readVaultTransaction(ctx context.Context, ms solana.PublicKey, r journal.Proposal) (vt *squads.VaultTransaction, proposed bool, err error) {
	txKey, _ := squads.TransactionPDA(ms, r.Index)
	data, err := e.readAccounts(ctx, "the vault transaction", txKey)
	if err != nil {
		return nil, false, err
	}
	if data[0] == nil {
		return nil, false, fmt.Errorf("vault transaction %s: no such account", txKey)
	}
	if vt, err = squads.DecodeVaultTransaction(data[0]); err != nil {
		return nil, false, err
	}
	want, err := base64.StdEncoding.DecodeString(r.Message)
	return vt, err == nil && bytes.Equal(vt.Message.Encode(), want), nil
}

// isOurs reports whether the vault transaction at r's index is the one
// keeper proposed: its creator keeper, its message the journaled one.
func (e *Executor) isOurs(ctx context.Context, ms solana.PublicKey, r journal.Proposal) (bool, error) {
	vt, proposed, err := e.readVaultTransaction(ctx, ms, r)
	return err == nil && proposed && vt.Creator == e.wallet, err
}

// executeComposer prepares keeper's execution of r and returns what
// composes it with a compute budget (nil: none) on a fresh blockhash: the
// vault transaction on chain must be the message keeper journaled.
func (e *Executor) executeComposer(ctx context.Context, ms solana.PublicKey, r journal.Proposal) (func(*signer.Budget) ([]byte, error), error) {
	vt, proposed, err := e.readVaultTransaction(ctx, ms, r)
	if err != nil {
		return nil, err
	}
	if !proposed {
		return nil, fmt.Errorf("the vault transaction on chain is not the message keeper proposed; not executing")
	}
	tables, err := e.lookupTables(ctx, vt.Message)
	if err != nil {
		return nil, err
	}
	rest, err := squads.ExecuteAccounts(vt.Message, tables, nil)
	if err != nil {
		return nil, err
	}
	bh, err := e.cfg.Proposals.Blockhash(ctx)
	if err != nil {
		return nil, fmt.Errorf("blockhash: %w", err)
	}
	return func(b *signer.Budget) ([]byte, error) {
		return squads.ExecuteMessage(ms, r.Index, e.wallet, rest, b, bh)
	}, nil
}

// lookupTables reads the address lookup tables msg uses.
func (e *Executor) lookupTables(ctx context.Context, msg *squads.Message) (map[solana.PublicKey][]solana.PublicKey, error) {
	out := map[solana.PublicKey][]solana.PublicKey{}
	if len(msg.Lookups) == 0 {
		return out, nil
	}
	keys := make([]solana.PublicKey, len(msg.Lookups))
	for i, l := range msg.Lookups {
		keys[i] = l.Table
	}
	data, err := e.readAccounts(ctx, "the lookup tables", keys...)
	if err != nil {
		return nil, err
	}
	for i, k := range keys {
		addrs, err := squads.LookupTableAddresses(data[i])
		if err != nil {
			return nil, fmt.Errorf("lookup table %s: %w", k, err)
		}
		out[k] = addrs
	}
	return out, nil
}

// step journals u for r and announces it; a settled proposal counts its
// action's outcome.
func (e *Executor) step(ctx context.Context, ms solana.PublicKey, r journal.Proposal, u journal.ProposalUpdate) error {
	if err := e.cfg.Journal.UpdateProposal(ctx, r.Multisig, r.Index, u); err != nil {
		return err
	}
	if o, settles := settledOutcome(u.State); settles {
		p := Plan{ID: r.ActionID, Policy: r.Policy}
		if act, err := e.cfg.Journal.Get(ctx, r.ActionID); err == nil {
			p.Kind = signer.Kind(act.Kind)
		}
		e.Count(p, o)
	}
	if u.State != journal.ProposalExecuting {
		e.announceProposal(ctx, ms, r, u.State, u.Detail)
	}
	return nil
}

// settledOutcome is the outcome of the action whose proposal settled in s
// (the action was counted proposed when its proposal landed): landed once
// executed, rejected, cancelled or superseded when it never can be. An
// open or abandoned proposal settles nothing (an abandoned one's action
// was counted by its own attempt).
func settledOutcome(s journal.ProposalState) (Outcome, bool) {
	o, ok := map[journal.ProposalState]Outcome{journal.ProposalExecuted: OutcomeLanded, journal.ProposalRejected: OutcomeRejected,
		journal.ProposalCancelled: OutcomeCancelled, journal.ProposalSuperseded: OutcomeSuperseded}[s]
	return o, ok
}

// clockTime is the unix_timestamp of the Clock sysvar's account data (slot,
// epoch_start_timestamp, epoch, leader_schedule_epoch, unix_timestamp:
// 8 bytes little-endian each).
func clockTime(data []byte) (time.Time, error) {
	if len(data) < 40 {
		return time.Time{}, fmt.Errorf("the Clock sysvar holds %d bytes, not 40", len(data))
	}
	return time.Unix(int64(binary.LittleEndian.Uint64(data[32:40])), 0), nil
}

// joinKeys writes keys in base58, separated by sep: "," in the journal's
// lists of members, ", " in messages.
func joinKeys(ks []solana.PublicKey, sep string) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = k.String()
	}
	return strings.Join(s, sep)
}

// readAccounts reads keys' accounts, one entry per key (nil: no such
// account); an error names what was read.
func (e *Executor) readAccounts(ctx context.Context, what string, keys ...solana.PublicKey) ([][]byte, error) {
	data, err := e.cfg.Submitter.MultipleAccounts(ctx, keys)
	if err == nil && len(data) != len(keys) {
		err = fmt.Errorf("the node answered %d accounts of %d", len(data), len(keys))
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	return data, nil
}
