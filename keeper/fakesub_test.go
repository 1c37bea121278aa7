package keeper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
)

// simReply scripts one Simulate call.
type simReply struct {
	outflows chain.Outflows
	err      error
}

// sendReply scripts one SendAndConfirm or SendBundle call. The outcome must
// be given: its zero value is chain.OutcomeUnknown.
type sendReply struct {
	outcome chain.Outcome
	err     error
	// nothingSent returns the reply before anything leaves (no tip asked,
	// nothing reaches the chain), as a full bundle under a refusing policy.
	nothingSent bool
	// tip is the tip a bundle asks the TipFunc for; 0 means the policy's floor.
	tip uint64
	// raises are the tips of the bundle's resubmissions, asked for after the
	// first, as the chain client does when a bundle is dropped.
	raises []uint64
}

// settleReply scripts one Settle call.
type settleReply struct {
	verdict chain.Verdict
	attempt int // index of the landed attempt, for VerdictLanded
	txErr   any // the chain error of the landed attempt's transactions
	err     error
}

// sendRecord is one submission the fake received.
type sendRecord struct {
	route       chain.Route
	txs         []chain.Signed
	pol         chain.TipPolicy
	tip         *chain.Signed // the tip transaction of a bundle, when one was made
	tipLamports uint64
	// tips are every tip transaction the bundle was sent with, in order;
	// the last is tip.
	tips []chain.TipAttempt
}

// landing is what the fake chain knows of one transaction that reached it.
type landing struct{ err any }

// fakeSubmitter is a scripted Solana RPC and Jito engine with a tiny chain
// model. Unscripted calls behave like a healthy chain: simulation shows the
// fee leaving the wallet, sends land, Settle answers from what landed (and
// calls everything else dead: the blockhashes have expired). Every
// submission is recorded and checked: fully and validly signed, and a
// signature sent again only with the same bytes.
type fakeSubmitter struct {
	wallet     solana.PublicKey
	tipAccount solana.PublicKey
	log        *eventLog
	crash      *crashPoint
	// verify checks the signatures of every sent transaction (off in benchmarks).
	verify bool
	// noBundleSim makes SimulateSequence answer that the endpoint has no
	// simulateBundle.
	noBundleSim bool
	// journaled, when set, reports whether a tip signature is in the
	// journal; a tip handed over before it is journaled is a problem.
	journaled func(sig solana.Signature) (bool, error)
	// fees, when set, is the chain's fee market (see world.fees).
	fees *fakeFees

	mu        sync.Mutex
	sims      []simReply
	sends     []sendReply
	settles   []settleReply
	simulated int
	sent      []sendRecord
	settled   [][][]chain.TxRef
	onChain   map[solana.Signature]landing
	bytesOf   map[solana.Signature][]byte
	sendCount map[solana.Signature]int
	problems  []string
}

// simFee is the fee the fake simulation reports for every transaction.
const simFee = 10_000

func newFakeSubmitter(wallet solana.PublicKey, log *eventLog, crash *crashPoint) *fakeSubmitter {
	return &fakeSubmitter{wallet: wallet, tipAccount: keyOf("jito tip account 1"), log: log, crash: crash, verify: true,
		onChain: map[solana.Signature]landing{}, bytesOf: map[solana.Signature][]byte{}, sendCount: map[solana.Signature]int{}}
}

func (s *fakeSubmitter) scriptSims(r ...simReply) { s.locked(func() { s.sims = append(s.sims, r...) }) }
func (s *fakeSubmitter) scriptSends(r ...sendReply) {
	s.locked(func() { s.sends = append(s.sends, r...) })
}
func (s *fakeSubmitter) scriptSettles(r ...settleReply) {
	s.locked(func() { s.settles = append(s.settles, r...) })
}

func (s *fakeSubmitter) locked(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn()
}

// watchJournal makes the fake check every tip it is handed against j.
func (s *fakeSubmitter) watchJournal(j *journal.Journal) {
	s.locked(func() {
		s.journaled = func(sig solana.Signature) (bool, error) { return tipJournaled(j, sig) }
	})
}

// tipJournaled reports whether an unsettled action of j holds the tip
// signature sig.
func tipJournaled(j *journal.Journal, sig solana.Signature) (bool, error) {
	acts, err := j.Pending(context.Background())
	if err != nil {
		return false, err
	}
	for _, a := range acts {
		for _, at := range a.Attempts {
			for _, t := range at.Tips {
				if t.Signature == sig.String() {
					return true, nil
				}
			}
		}
	}
	return false, nil
}

// snapshot returns copies of what the fake recorded.
func (s *fakeSubmitter) snapshot() (sims int, sent []sendRecord, settled [][][]chain.TxRef, problems []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.simulated, slices.Clone(s.sent), slices.Clone(s.settled), slices.Clone(s.problems)
}

// landedCount is how many of sigs are on the fake chain.
func (s *fakeSubmitter) landedCount(sigs []solana.Signature) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, sig := range sigs {
		if _, ok := s.onChain[sig]; ok {
			n++
		}
	}
	return n
}

// mostSent returns the signature sent most often and how often.
func (s *fakeSubmitter) mostSent() (solana.Signature, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var top solana.Signature
	n := 0
	for sig, c := range s.sendCount {
		if c > n {
			top, n = sig, c
		}
	}
	return top, n
}

// Simulate implements Submitter.
func (s *fakeSubmitter) Simulate(_ context.Context, raw []byte, wallet solana.PublicKey) (*chain.SimResult, error) {
	s.crash.hit("submitter.Simulate")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.simulated++
	s.log.add("simulate")
	if !wallet.Equals(s.wallet) {
		s.problems = append(s.problems, fmt.Sprintf("simulate for wallet %s, want %s", wallet, s.wallet))
	}
	s.checkUnsigned("simulate", raw)
	r := simReply{outflows: chain.Outflows{Lamports: simFee}}
	if len(s.sims) > 0 {
		r, s.sims = s.sims[0], s.sims[1:]
	}
	res := &chain.SimResult{Fee: chain.Fee{Payer: wallet, Base: simFee}, Outflows: r.outflows}
	return res, r.err
}

// TipAccounts implements Submitter: the fake's one tip account.
func (s *fakeSubmitter) TipAccounts(context.Context) ([]solana.PublicKey, error) {
	return []solana.PublicKey{s.tipAccount}, nil
}

// SimulateSequence implements Submitter: each transaction as Simulate
// scripts it, stopping at the first failure.
func (s *fakeSubmitter) SimulateSequence(ctx context.Context, raws [][]byte, wallet solana.PublicKey) ([]*chain.SimResult, error) {
	if s.noBundleSim {
		return nil, chain.ErrBundleSimUnavailable
	}
	var out []*chain.SimResult
	for i, raw := range raws {
		res, err := s.Simulate(ctx, raw, wallet)
		out = append(out, res)
		if se, ok := errors.AsType[*chain.SimError](err); ok {
			cp := *se
			cp.Index = i
			return out, &cp
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SendAndConfirm implements Submitter.
func (s *fakeSubmitter) SendAndConfirm(_ context.Context, txs []chain.Signed) (chain.Result, error) {
	s.crash.hit("submitter.send")
	res, err := s.send(chain.RouteRPC, txs, nil, chain.TipPolicy{})
	s.crash.hit("submitter.sent")
	return res, err
}

// SendBundle implements Submitter: it asks tip for the tip transaction the
// way the chain client does and checks what it returns.
func (s *fakeSubmitter) SendBundle(ctx context.Context, txs []chain.Signed, tip chain.TipFunc, pol chain.TipPolicy) (chain.Result, error) {
	s.crash.hit("submitter.send")
	res, err := s.send(chain.RouteBundle, txs, func(lamports uint64) (chain.Signed, error) {
		return tip(ctx, s.tipAccount, lamports, txs[0].Blockhash)
	}, pol)
	s.crash.hit("submitter.sent")
	return res, err
}

// send records and lands one submission as scripted.
func (s *fakeSubmitter) send(route chain.Route, txs []chain.Signed, tip func(uint64) (chain.Signed, error), pol chain.TipPolicy) (chain.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := sendReply{outcome: chain.OutcomeLanded}
	if len(s.sends) > 0 {
		r, s.sends = s.sends[0], s.sends[1:]
	}
	rec := sendRecord{route: route, txs: slices.Clone(txs), pol: pol}
	if r.nothingSent {
		s.log.add("send %s %d", route, len(txs))
		s.sent = append(s.sent, rec)
		return s.result(rec, r.outcome), r.err
	}
	if tip != nil {
		if err := s.makeTips(&rec, tip, append([]uint64{max(r.tip, pol.Floor)}, r.raises...)); err != nil {
			s.sent = append(s.sent, rec)
			return s.result(rec, chain.OutcomeRefused), fmt.Errorf("send bundle: tip transaction: %w", err)
		}
	}
	s.log.add("send %s %d", route, len(txs))
	for _, t := range txs {
		s.check("send", t.Raw)
		if prev, ok := s.bytesOf[t.Signature]; ok && !bytes.Equal(prev, t.Raw) {
			s.problems = append(s.problems, fmt.Sprintf("signature %s sent again with different bytes", t.Signature))
		}
		s.bytesOf[t.Signature] = slices.Clone(t.Raw)
		s.sendCount[t.Signature]++
	}
	s.sent = append(s.sent, rec)
	s.land(txs, r.outcome)
	if r.outcome == chain.OutcomeLanded && rec.tip != nil {
		s.onChain[rec.tip.Signature] = landing{} // the tip lands with its bundle
	}
	return s.result(rec, r.outcome), r.err
}

// Statuses implements Submitter from the fake chain.
func (s *fakeSubmitter) Statuses(_ context.Context, sigs []solana.Signature) ([]chain.Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]chain.Status, len(sigs))
	for i, sig := range sigs {
		out[i].Signature = sig
		if l, ok := s.onChain[sig]; ok {
			out[i] = chain.Status{Signature: sig, Found: true, Slot: 100, Confirmation: rpc.ConfirmationStatusConfirmed, Err: l.err}
		}
	}
	return out, nil
}

// makeTips asks tip for a tip transaction of each of lamports in turn, as
// the chain client does for a bundle and its resubmissions, and checks that
// each is the transfer asked for and journaled before it is sent. A failure
// of the first tip sends nothing; a later one stops the resubmissions.
func (s *fakeSubmitter) makeTips(rec *sendRecord, tip func(uint64) (chain.Signed, error), lamports []uint64) error {
	for i, l := range lamports {
		t, err := s.withoutLock(func() (chain.Signed, error) { return tip(l) })
		if err != nil {
			if i == 0 {
				return err
			}
			return nil // resubmissions stop; the bundles already sent stand
		}
		s.checkTip(t, l, rec.txs[0].Blockhash)
		s.checkTipJournaled(t.Signature)
		s.crash.hit("submitter.tipped")
		s.log.add("tip %d", l)
		rec.tip, rec.tipLamports = &t, l
		rec.tips = append(rec.tips, chain.TipAttempt{Signature: t.Signature, Account: s.tipAccount, Lamports: l, Accepted: true})
	}
	return nil
}

// checkTipJournaled records a problem unless the journal holds the tip
// signature sig. The caller holds s.mu.
func (s *fakeSubmitter) checkTipJournaled(sig solana.Signature) {
	if s.journaled == nil {
		return
	}
	s.mu.Unlock()
	ok, err := s.journaled(sig)
	s.mu.Lock()
	if err != nil || !ok {
		s.problems = append(s.problems, fmt.Sprintf("tip %s handed over for sending but not journaled (%v)", sig, err))
	}
}

// withoutLock runs fn (a callback into keeper) with s.mu released.
func (s *fakeSubmitter) withoutLock(fn func() (chain.Signed, error)) (chain.Signed, error) {
	s.mu.Unlock()
	defer s.mu.Lock()
	return fn()
}

// land puts what the outcome says landed on the fake chain.
func (s *fakeSubmitter) land(txs []chain.Signed, out chain.Outcome) {
	switch out {
	case chain.OutcomeLanded:
		for _, t := range txs {
			s.onChain[t.Signature] = landing{}
		}
	case chain.OutcomeFailed:
		s.onChain[txs[0].Signature] = landing{err: map[string]any{"InstructionError": []any{0, "Custom"}}}
	case chain.OutcomePartial:
		s.onChain[txs[0].Signature] = landing{}
	}
}

// result is the chain client's report of a submission with outcome out.
func (s *fakeSubmitter) result(rec sendRecord, out chain.Outcome) chain.Result {
	res := chain.Result{Outcome: out, Route: rec.route, Txs: make([]chain.TxResult, len(rec.txs))}
	for i, t := range rec.txs {
		r := chain.TxResult{Signature: t.Signature}
		switch {
		case out == chain.OutcomeLanded, out == chain.OutcomePartial && i == 0:
			r.State = chain.TxLanded
		case out == chain.OutcomeFailed && i == 0:
			r.State, r.Err = chain.TxFailed, &chain.TxError{Signature: t.Signature.String(), Err: s.onChain[t.Signature].err}
		case out == chain.OutcomeExpired, out == chain.OutcomePartial:
			r.State = chain.TxExpired
		case out == chain.OutcomeUnknown:
			r.State = chain.TxPending
		}
		res.Txs[i] = r
	}
	if rec.route == chain.RouteBundle {
		res.Bundle = &chain.BundleReport{LandedTip: -1}
		if len(rec.tips) > 0 {
			res.Bundle.Tips = slices.Clone(rec.tips)
			if out == chain.OutcomeLanded {
				res.Bundle.LandedTip = len(rec.tips) - 1
			}
		}
	}
	return res
}

// check records a problem unless raw is a fully and validly signed
// transaction paid by our wallet.
func (s *fakeSubmitter) check(what string, raw []byte) {
	if !s.verify {
		return
	}
	tx, err := solana.TransactionFromBytes(raw)
	switch {
	case err != nil:
		s.problems = append(s.problems, fmt.Sprintf("%s: undecodable transaction: %v", what, err))
	case tx.VerifySignatures() != nil:
		s.problems = append(s.problems, fmt.Sprintf("%s: bad signatures: %v", what, tx.VerifySignatures()))
	case !tx.Message.AccountKeys[0].Equals(s.wallet):
		s.problems = append(s.problems, fmt.Sprintf("%s: fee payer %s is not the wallet", what, tx.Message.AccountKeys[0]))
	}
}

// checkUnsigned records a problem unless raw is a transaction paid by our
// wallet whose wallet slot is empty and whose other slots hold valid
// signatures: keeper simulates before it signs, so no signature of its key
// reaches a simulation (or anything else) before it is journaled.
func (s *fakeSubmitter) checkUnsigned(what string, raw []byte) {
	if !s.verify {
		return
	}
	tx, err := solana.TransactionFromBytes(raw)
	if err != nil {
		s.problems = append(s.problems, fmt.Sprintf("%s: undecodable transaction: %v", what, err))
		return
	}
	msg, err := tx.Message.MarshalBinary()
	if err != nil {
		s.problems = append(s.problems, fmt.Sprintf("%s: %v", what, err))
		return
	}
	if !tx.Message.AccountKeys[0].Equals(s.wallet) {
		s.problems = append(s.problems, fmt.Sprintf("%s: fee payer %s is not the wallet", what, tx.Message.AccountKeys[0]))
	}
	for i, sig := range tx.Signatures {
		key := tx.Message.AccountKeys[i]
		switch {
		case key.Equals(s.wallet) && !sig.IsZero():
			s.problems = append(s.problems, fmt.Sprintf("%s: the transaction carries a signature of the wallet's (slot %d)", what, i))
		case !key.Equals(s.wallet) && !key.Verify(msg, sig):
			s.problems = append(s.problems, fmt.Sprintf("%s: slot %d (%s) holds no valid signature", what, i, key))
		}
	}
}

// checkTip records a problem unless t is exactly the tip transfer asked for,
// signed by the wallet.
func (s *fakeSubmitter) checkTip(t chain.Signed, lamports uint64, blockhash solana.Hash) {
	want, err := chain.BuildTipMessage(s.wallet, s.tipAccount, lamports, blockhash)
	if err != nil {
		s.problems = append(s.problems, "tip message: "+err.Error())
		return
	}
	tx, err := solana.TransactionFromBytes(t.Raw)
	if err != nil {
		s.problems = append(s.problems, "tip: "+err.Error())
		return
	}
	msg, err := tx.Message.MarshalBinary()
	switch {
	case err != nil:
		s.problems = append(s.problems, "tip: "+err.Error())
	case !bytes.Equal(msg, want):
		s.problems = append(s.problems, "tip: not the transfer asked for")
	case len(tx.Signatures) != 1 || !s.wallet.Verify(msg, tx.Signatures[0]) || tx.Signatures[0] != t.Signature:
		s.problems = append(s.problems, "tip: not signed by the wallet")
	}
}

// Settle implements Submitter.
func (s *fakeSubmitter) Settle(_ context.Context, attempts [][]chain.TxRef) (chain.Settlement, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settled = append(s.settled, attempts)
	s.log.add("settle %d", len(attempts))
	if len(s.settles) > 0 {
		var r settleReply
		r, s.settles = s.settles[0], s.settles[1:]
		if r.err != nil {
			return chain.Settlement{Attempt: -1}, r.err
		}
		return settlement(attempts, r.verdict, r.attempt, r.txErr), nil
	}
	for i, a := range attempts {
		for _, ref := range a {
			if l, ok := s.onChain[ref.Signature]; ok {
				return settlement(attempts, chain.VerdictLanded, i, l.err), nil
			}
		}
	}
	return settlement(attempts, chain.VerdictDead, -1, nil), nil
}

// settlement is the chain client's answer for a verdict.
func settlement(attempts [][]chain.TxRef, v chain.Verdict, landed int, txErr any) chain.Settlement {
	if v != chain.VerdictLanded {
		landed = -1
	}
	st := chain.Settlement{Verdict: v, Attempt: landed}
	for i, a := range attempts {
		row := make([]chain.Status, len(a))
		for j, ref := range a {
			row[j] = chain.Status{Signature: ref.Signature}
			if i == landed {
				row[j] = chain.Status{Signature: ref.Signature, Found: true, Slot: 100,
					Confirmation: rpc.ConfirmationStatusConfirmed, Err: txErr}
			}
		}
		st.Statuses = append(st.Statuses, row)
	}
	return st
}

// Balance implements Submitter; the action path does not read it.
func (s *fakeSubmitter) Balance(context.Context, solana.PublicKey) (uint64, error) {
	return 0, errNotScripted
}

// MultipleAccounts implements Submitter; the action path does not read it.
func (s *fakeSubmitter) MultipleAccounts(context.Context, []solana.PublicKey) ([][]byte, error) {
	return nil, errNotScripted
}

// Accounts implements Submitter; the fake chain holds no mint or oracle
// account, so token and price reads find nothing to learn from.
func (s *fakeSubmitter) Accounts(context.Context, []solana.PublicKey) ([]*chain.Account, error) {
	return nil, errNotScripted
}

// RecentPrioritizationFees implements Submitter: the world's fee market,
// which a world without one never asks (its keepers price nothing, see
// world.open).
func (s *fakeSubmitter) RecentPrioritizationFees(ctx context.Context, accounts []solana.PublicKey) ([]chain.PrioritizationFee, error) {
	if s.fees == nil {
		return nil, errNotScripted
	}
	return s.fees.RecentPrioritizationFees(ctx, accounts)
}

// Slot implements Submitter; the fake chain has no slots to poll.
func (s *fakeSubmitter) Slot(context.Context) (uint64, error) {
	return 0, errNotScripted
}

// LatestBlockhash implements Submitter; only keeper's own Squads
// transactions read it, and the fake chain serves no multisig.
func (s *fakeSubmitter) LatestBlockhash(context.Context) (chain.Blockhash, error) {
	return chain.Blockhash{}, errNotScripted
}
