package action

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/internal/failpoint"
	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/notify"
	"github.com/keeper-project/keeper/keeper/squads"
	"github.com/keeper-project/keeper/signer"
)

// ProposalConfig is what proposal mode works with: how keeper builds for a
// multisig's vault, proposes, and follows its proposals to the end. It is
// needed only when a policy's authority is a Squads multisig.
type ProposalConfig struct {
	// BuilderFor returns the market client that builds for authority (sent
	// as the wallet; the vault pays nothing: keeper pays the execution).
	BuilderFor func(authority solana.PublicKey) (Builder, error)
	// Blockhash returns a recent blockhash for keeper's execute transactions.
	Blockhash func(ctx context.Context) (solana.Hash, error)
	// AppURL is the Squads app's base URL, for links in notifications
	// ("https://app.squads.so"); empty: no links.
	AppURL string
}

// RuleProposal marks an action proposal mode cannot take: the market's
// answer is more than one transaction, or keeper is not a member that may
// propose.
const RuleProposal journal.Rule = "proposal"

// propose is the action path of a plan whose authority is a Squads
// multisig: build for the vault → journal built → guard the answer as the
// vault's direct transaction → simulate it with the vault signing → read
// the multisig's next transaction index → compose keeper's proposal
// transaction and check it → simulate it → price it when the fee market
// contests its accounts (compose, check and simulate it again with
// keeper's compute budget first) → journal the proposal (its index) → sign → journal the signature → send → settle. The action lands
// when the proposal is on chain; the proposal's life after that (votes,
// execution) is followed by TrackProposals.
func (a *attempt) propose(ctx context.Context) Outcome {
	sq, j := a.p.Squads, a.e.cfg.Journal
	multisig := sq.MultisigKey()
	vault := sq.Vault()
	a.e.proposalPricing.Store(a.p.Policy, proposalPrice{percentile: a.p.Submit.Percentile, maxUnitPrice: a.p.Bounds.MaxComputeUnitPrice})
	if a.e.cfg.Proposals.BuilderFor == nil {
		return a.settle(ctx, journal.Outcome{State: journal.StateFailed, Rule: RuleProposal, Detail: "proposal mode is not wired"})
	}
	b, err := a.e.cfg.Proposals.BuilderFor(vault)
	if err != nil {
		return a.settle(ctx, journal.Outcome{State: journal.StateFailed, Rule: RuleProposal, Detail: err.Error()})
	}
	txs, err := build(ctx, b, market.IdempotencyKey(a.att.IdempotencyKey), a.p.Request)
	if err != nil {
		return a.buildFailed(ctx, err)
	}
	if err := j.RecordBuilt(ctx, a.p.ID, a.att.Number, buildRecord(txs, a.p.Submit)); err != nil {
		return a.notJournaled(ctx, "Cannot journal the built transactions; not proposing", err)
	}
	failpoint.Hit(failpoint.AfterBuild)
	if len(txs) != 1 {
		return a.refuse(ctx, RuleProposal, fmt.Sprintf("the market answered %d transactions; a proposal carries one", len(txs)))
	}
	msg, blockhash, out, ok := a.guardInner(ctx, txs[0], vault)
	if !ok {
		return out
	}
	index, out, ok := a.nextIndex(ctx, multisig)
	if !ok {
		return out
	}
	prop := squads.Propose{Multisig: multisig, Index: index, VaultIndex: sq.VaultIndex, Creator: a.e.wallet, Message: msg,
		Memo: "keeper " + ShortID(a.p.ID)}
	raw, sim, out, ok := a.outerTx(ctx, prop, blockhash)
	if !ok {
		return out
	}
	budget, err := a.ownBudget(ctx, raw, sim.UnitsConsumed)
	switch {
	case errors.Is(err, ErrAboveCap):
		return a.aboveCap(ctx, err)
	case err != nil:
		return a.refuse(ctx, journal.RuleMalformedTransaction, err.Error())
	case budget != nil:
		prop.Budget = budget
		if raw, sim, out, ok = a.outerTx(ctx, prop, blockhash); !ok {
			return out
		}
	}
	rec := journal.Proposal{Multisig: multisig.String(), Index: index, ActionID: a.p.ID, Policy: a.p.Policy, Target: a.p.Target,
		Message: base64.StdEncoding.EncodeToString(msg.Encode())}
	if err := j.RecordProposal(ctx, rec); err != nil {
		return a.notJournaled(ctx, "Cannot journal the proposal; not proposing", err)
	}
	return a.sendProposal(ctx, raw, prop.Multisig, rec, sim.Fee.Total())
}

// proposalPrice is how a policy in proposal mode prices keeper's own
// transactions: its percentile and its compute-unit price cap, as its last
// plan set them. The executions TrackProposals makes later use them; after
// a restart, until the policy plans again, they bid the default percentile
// under the global cap (the guard's cap holds either way).
type proposalPrice struct {
	percentile   int
	maxUnitPrice uint64
}

// guardInner decodes the market's answer, runs the guard over it as the
// vault's direct transaction, and simulates its instructions with the vault
// signing, checking what leaves the vault against the plan's bounds.
func (a *attempt) guardInner(ctx context.Context, b built, vault solana.PublicKey) (*squads.Message, solana.Hash, Outcome, bool) {
	tx, err := b.decode()
	if err != nil {
		return nil, solana.Hash{}, a.refuse(ctx, journal.RuleMalformedTransaction, err.Error()), false
	}
	if err := a.e.cfg.Signer.CheckAs(vault, []*signer.Tx{tx}, a.p.Kind, a.p.Bounds); err != nil {
		return nil, solana.Hash{}, a.refusal(ctx, 0, err), false
	}
	msg, blockhash, err := squads.ParseSolana(tx.MessageBytes())
	if err != nil {
		return nil, blockhash, a.refuse(ctx, journal.RuleMalformedTransaction, err.Error()), false
	}
	for i := range int(msg.NumSigners) {
		if k := msg.AccountKeys[i]; k != vault {
			return nil, blockhash, a.refuse(ctx, RuleProposal, fmt.Sprintf(
				"the vault transaction needs the signature of %s, which a Squads execution cannot carry", k)), false
		}
	}
	simMsg, err := squads.SimulationMessage(msg, a.e.wallet, blockhash)
	if err != nil {
		return nil, blockhash, a.refuse(ctx, RuleProposal, err.Error()), false
	}
	simWire, err := a.e.unsigned(simMsg)
	if err != nil {
		return nil, blockhash, a.refuse(ctx, journal.RuleMalformedTransaction, err.Error()), false
	}
	sim, err := a.e.cfg.Submitter.Simulate(ctx, simWire, vault)
	if err != nil {
		a.log.Warn("The vault transaction does not pass simulation; not proposing", "err", err)
		return nil, blockhash, a.settle(ctx, journal.Outcome{State: journal.StateExpired, Rule: journal.RuleSimFailed,
			Detail: "vault transaction: " + err.Error()}), false
	}
	vaultOut := outflows(sim.Outflows)
	vaultOut.Lamports -= min(vaultOut.Lamports, int64(sim.Fee.Total())) // the simulation's fee is keeper's, not the vault's
	if err := signer.CheckOutflows(a.p.Kind, a.p.Bounds, vaultOut); err != nil {
		return nil, blockhash, a.refusal(ctx, 0, err), false
	}
	return msg, blockhash, "", true
}

// nextIndex reads the multisig: keeper must be a member with Initiate, and
// the proposal goes at the index after its transaction_index.
func (a *attempt) nextIndex(ctx context.Context, multisig solana.PublicKey) (uint64, Outcome, bool) {
	ms, err := readMultisig(ctx, a.e.cfg.Submitter, multisig)
	if err != nil {
		a.log.Warn("Cannot read the multisig; not proposing", "err", err)
		return 0, a.settle(ctx, journal.Outcome{State: journal.StateExpired, Rule: journal.RuleSimUnavailable, Detail: err.Error()}), false
	}
	if perm, member := ms.Member(a.e.wallet); !member || !perm.Has(squads.Initiate) {
		return 0, a.refuse(ctx, RuleProposal, fmt.Sprintf("keeper's key %s may not propose to multisig %s (permissions %s)", a.e.wallet, multisig, perm)), false
	}
	return ms.TransactionIndex + 1, "", true
}

// outerTx composes keeper's proposal transaction for prop and checks it:
// its shape (CheckPropose), its size, and its unsigned simulation, which
// must pass and cost keeper at most the plan's lamports bound plus the
// rent of the two accounts it creates. It returns the message and the
// simulation.
func (a *attempt) outerTx(ctx context.Context, prop squads.Propose, blockhash solana.Hash) ([]byte, *chain.SimResult, Outcome, bool) {
	raw, err := squads.ProposeMessage(prop, blockhash)
	if err == nil {
		err = squads.CheckPropose(raw, prop)
	}
	if err != nil {
		return nil, nil, a.refuse(ctx, journal.Rule(signer.RuleProposalShape), err.Error()), false
	}
	wire, err := a.e.unsigned(raw)
	if err != nil {
		return nil, nil, a.refuse(ctx, journal.RuleMalformedTransaction, err.Error()), false
	}
	if n := len(wire); n > maxTransactionSize {
		return nil, nil, a.refuse(ctx, RuleProposal, fmt.Sprintf("the proposal transaction is %d bytes, over Solana's %d: "+
			"the answer is too large to propose in one transaction (Squads transaction buffers are not used)", n, maxTransactionSize)), false
	}
	sim, err := a.e.cfg.Submitter.Simulate(ctx, wire, a.e.wallet)
	if err != nil {
		a.log.Warn("The proposal transaction does not pass simulation; not proposing", "err", err)
		return nil, nil, a.settle(ctx, journal.Outcome{State: journal.StateExpired, Rule: journal.RuleSimFailed,
			Detail: "proposal: " + err.Error()}), false
	}
	limit := a.p.Bounds.MaxLamports + squads.ProposeRent(prop, proposalMembersBound)
	if sim.Outflows.Lamports > int64(limit) {
		return nil, nil, a.refuse(ctx, journal.Rule(signer.RuleSimulatedLamports),
			fmt.Sprintf("the proposal costs %d lamports, more than the %d allowed", sim.Outflows.Lamports, limit)), false
	}
	return raw, sim, "", true
}

// ownBudget is the compute budget of a message keeper composes and alone
// signs (a Squads proposal or execution, raw), priced as priceOwn prices
// an answer: the fee market read over the accounts raw write-locks, the
// price bid (the plan's percentile, raised over the last attempt's, at
// most the cap), the limit from units, what its unsigned simulation
// consumed. Nil when pricing is off, when nobody competes for those
// accounts, or when the fee market cannot be read (raw goes unpriced, as
// route.go sends an answer as built); an ErrAboveCap when the market is
// above the cap.
func (a *attempt) ownBudget(ctx context.Context, raw []byte, units uint64) (*signer.Budget, error) {
	if a.e.cfg.Priority.Fees == nil {
		return nil, nil
	}
	tx, err := signer.DecodeMessage(raw)
	if err != nil {
		return nil, fmt.Errorf("keeper's own transaction: %w", err)
	}
	a.pricing.accounts = writable([]*signer.Tx{tx})
	mkt, price, err := a.bid(ctx)
	switch {
	case errors.Is(err, ErrAboveCap):
		return nil, err
	case err != nil:
		a.log.Warn("Cannot read the fee market; sending keeper's own transaction unpriced", "err", err)
		return nil, nil
	case mkt == 0:
		return nil, nil
	}
	b := a.budget(units, price)
	a.pricing.price = price
	a.log.Info("Priced keeper's own transaction", "price", price, "market", mkt, "percentile", pctOf(a.p), "limit", b.Limit, "units", units)
	return &b, nil
}

// maxTransactionSize is the most bytes a Solana wire transaction may hold
// (PACKET_DATA_SIZE).
const maxTransactionSize = 1232

// proposalMembersBound is the most members the rent allowance of a proposal
// account covers (its size grows with the members).
const proposalMembersBound = 32

// sendProposal signs keeper's proposal transaction, journals its signature,
// sends it and settles the attempt; a landed proposal is announced.
func (a *attempt) sendProposal(ctx context.Context, raw []byte, multisig solana.PublicKey, rec journal.Proposal, fee uint64) Outcome {
	j := a.e.cfg.Journal
	s, err := a.e.cfg.Signer.SignProposal(raw, squads.ProgramID, a.e.unitPriceCap(a.p))
	if err != nil {
		return a.refusal(ctx, 0, err)
	}
	failpoint.Hit(failpoint.AfterSign)
	signed := []chain.Signed{{Raw: s.Wire, Signature: s.TxID, Blockhash: s.Blockhash}}
	recs := signedRecords(signed)
	if err := j.RecordSigned(ctx, a.p.ID, a.att.Number, recs); err != nil {
		return a.notJournaled(ctx, "Cannot journal the signature; not sending", err)
	}
	a.sigs = signatureStrings(recs)
	failpoint.Hit(failpoint.AfterSignatures)
	if err := j.RecordSubmitted(ctx, a.p.ID, a.att.Number); err != nil {
		a.log.Error("Cannot journal the submission; sending anyway (the signature is journaled)", "err", err)
	}
	res, err := a.e.cfg.Submitter.SendAndConfirm(ctx, signed)
	failpoint.Hit(failpoint.AfterConfirm)
	switch {
	case err != nil && res.Outcome == chain.OutcomeUnknown:
		return a.pending("Submission did not settle; the journal keeps it for recovery", "err", err)
	case res.Outcome != chain.OutcomeLanded:
		return a.record(ctx, res, []uint64{fee})
	}
	paid, _ := resultCosts(res, []uint64{fee})
	out := a.settleAnd(ctx, proposalLanded(paid), func(string) {
		a.log.Info("Proposal landed", "reason", a.p.Reason, "signatures", signatures(res), "links", a.e.cfg.Links.Txs(signatures(res)))
	})
	if out == OutcomeProposed {
		a.e.proposalSeen(ctx, a.log, multisig, rec)
	}
	return out
}

// proposalLanded is the outcome of an attempt whose proposal landed: the
// action is landed with rule proposal-proposed (counted as proposed, not
// landed: nothing changes before the proposal is executed), and
// UpdateProposal settles it further when the proposal settles.
func proposalLanded(fee uint64) journal.Outcome {
	return journal.Outcome{State: journal.StateLanded, Rule: journal.ProposalRule(journal.ProposalProposed), FeeLamports: fee}
}

// asProposal is out, an outcome recovery found on chain for action id,
// as a proposal's landing when id proposed to a multisig.
func (e *Executor) asProposal(ctx context.Context, id string, out journal.Outcome) journal.Outcome {
	if out.State != journal.StateLanded {
		return out
	}
	if ps, err := e.cfg.Journal.Proposals(ctx, journal.ProposalFilter{ActionID: id}); err == nil && len(ps) > 0 {
		landed := proposalLanded(out.FeeLamports)
		landed.Detail = out.Detail
		return landed
	}
	return out
}

// proposalSeen marks r, the journaled proposal of multisig, as on chain
// and announces it to the members.
func (e *Executor) proposalSeen(ctx context.Context, log *slog.Logger, multisig solana.PublicKey, r journal.Proposal) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), journalTimeout)
	defer cancel()
	if err := e.cfg.Journal.UpdateProposal(wctx, r.Multisig, r.Index, journal.ProposalUpdate{State: journal.ProposalProposed}); err != nil {
		log.Error("Cannot journal the proposal as proposed; the tracker finds it on chain", "err", err)
		return
	}
	log.Info("Proposed to the multisig; waiting for its members", "multisig", multisig, "index", r.Index,
		"link", e.proposalLink(multisig, r.Index))
	e.announceProposal(ctx, multisig, r, journal.ProposalProposed, "")
}

// proposalLink is the Squads app's page of the vault transaction at index
// (an assumed URL form: docs/assumptions.md); empty without an app URL.
func (e *Executor) proposalLink(multisig solana.PublicKey, index uint64) string {
	if e.cfg.Proposals.AppURL == "" {
		return ""
	}
	return squads.AppLink(e.cfg.Proposals.AppURL, multisig, index)
}

// announceProposal notifies every notifier of a step of r, the journaled
// proposal of multisig, with the link members approve at and the action's
// reason.
func (e *Executor) announceProposal(ctx context.Context, multisig solana.PublicKey, r journal.Proposal, state journal.ProposalState, detail string) {
	if e.cfg.Notifier == nil {
		return
	}
	m := notify.Message{Event: notify.Event("proposal-" + string(state)), Policy: r.Policy, Target: r.Target, ActionID: r.ActionID,
		Detail: fmt.Sprintf("Squads transaction #%d of multisig %s %s", r.Index, multisig, state), Time: e.cfg.Now()}
	if act, err := e.cfg.Journal.Get(ctx, r.ActionID); err == nil {
		m.Reason, m.Kind = act.Reason, act.Kind
	}
	if detail != "" {
		m.Detail += ": " + detail
	}
	if link := e.proposalLink(multisig, r.Index); link != "" {
		m.Links = []string{link}
	}
	e.cfg.Notifier.Notify(m)
}

// readMultisig reads and decodes a multisig account.
func readMultisig(ctx context.Context, s Submitter, key solana.PublicKey) (*squads.Multisig, error) {
	data, err := s.MultipleAccounts(ctx, []solana.PublicKey{key})
	if err != nil {
		return nil, fmt.Errorf("reading multisig %s: %w", key, err)
	}
	if len(data) != 1 || data[0] == nil {
		return nil, fmt.Errorf("multisig %s has no account", key)
	}
	return squads.DecodeMultisig(data[0])
}

// unsigned is message as a wire transaction with empty signature slots:
// what simulation without signature verification runs.
func (e *Executor) unsigned(message []byte) ([]byte, error) {
	tx, err := signer.DecodeMessage(message)
	if err != nil {
		return nil, err
	}
	return e.cfg.Signer.Unsigned(tx)
}

// waited is how long a proposal has waited since it was journaled.
func waited(p journal.Proposal, now time.Time) time.Duration {
	return now.Sub(p.CreatedAt).Round(time.Second)
}

// proposalPending reports whether another action's proposal for p's policy
// and target is still open: a changed plan waits for it to settle instead
// of stacking a second proposal (keeper holds no Vote permission, so it
// cannot cancel its own; the members reject the outdated one, or approve
// it and keeper executes it, and the next run plans afresh).
func (e *Executor) proposalPending(ctx context.Context, p Plan) (string, bool) {
	if p.Squads == nil {
		return "", false
	}
	open, err := e.cfg.Journal.Proposals(ctx, journal.ProposalFilter{Open: true, Policy: p.Policy, Target: p.Target})
	if err != nil {
		return "cannot read the open proposals: " + err.Error(), true
	}
	for _, r := range open {
		if r.ActionID != p.ID {
			return fmt.Sprintf("proposal #%d of multisig %s (action %s) is %s for %s; reject it to let keeper propose the new plan",
				r.Index, r.Multisig, ShortID(r.ActionID), r.State, waited(r, e.cfg.Now())), true
		}
	}
	return "", false
}
