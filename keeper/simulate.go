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

// simulateAnswer simulates the signed transactions of one answer as an
// ordered sequence and checks the wallet's outflows over all of them
// against the plan's bounds:
//
//   - one transaction: simulated now;
//   - a bundle: simulated in order on accumulated state with simulateBundle;
//     where the endpoint lacks it, each transaction is simulated on the
//     state now, and one that fails there (it may depend on an earlier one)
//     is bounded by the static guard only;
//   - an RPC sequence: the first transaction now, each later one right
//     before its own send, on the state its predecessors left (see
//     submitSequence).
func (k *Keeper) simulateAnswer(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, set *signedSet) (Outcome, bool) {
	switch {
	case len(set.txs) > 1 && p.Submit.Mode == journal.ModeBundle:
		return k.simulateBundle(ctx, log, p, att, set)
	default:
		return k.simulateNext(ctx, log, p, att, set)
	}
}

// simulateNext simulates the next unsimulated transaction of set on the
// state now and adds its outflows to the total.
func (k *Keeper) simulateNext(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, set *signedSet) (Outcome, bool) {
	i := set.simulated
	sim, err := k.submitter.Simulate(ctx, set.txs[i].Raw, k.wallet)
	if err != nil {
		return k.simFailed(ctx, log, p, att, set, i, err), false
	}
	set.simulated++
	return k.checkTotal(ctx, log, p, att, set, i, sim)
}

// simulateBundle simulates a bundle's transactions in order.
func (k *Keeper) simulateBundle(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, set *signedSet) (Outcome, bool) {
	raws := make([][]byte, len(set.txs))
	for i, t := range set.txs {
		raws[i] = t.Raw
	}
	sims, err := k.submitter.SimulateSequence(ctx, raws, k.wallet)
	if errors.Is(err, chain.ErrBundleSimUnavailable) {
		return k.simulateEach(ctx, log, p, att, set)
	}
	var se *chain.SimError
	if errors.As(err, &se) && se.Index < len(sims) {
		sims = sims[:se.Index]
	} else if err != nil {
		return k.simFailed(ctx, log, p, att, set, 0, err), false
	}
	for i, sim := range sims {
		set.simulated++
		if out, ok := k.checkTotal(ctx, log, p, att, set, i, sim); !ok {
			return out, false
		}
	}
	if se != nil {
		return k.simFailed(ctx, log, p, att, set, se.Index, se), false
	}
	return "", true
}

// simulateEach simulates a bundle's transactions one by one on the state
// now, when no endpoint simulates bundles: the first must pass; a later one
// that fails may depend on an earlier one and is left to the static guard.
func (k *Keeper) simulateEach(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, set *signedSet) (Outcome, bool) {
	for i := range set.txs {
		sim, err := k.submitter.Simulate(ctx, set.txs[i].Raw, k.wallet)
		var se *chain.SimError
		switch {
		case err == nil:
		case i > 0 && errors.As(err, &se):
			log.Info("Transaction cannot be simulated before the ones it follows; bounded statically only", "tx", set.first+i, "err", err)
			set.fees = append(set.fees, 0)
			continue
		default:
			return k.simFailed(ctx, log, p, att, set, i, err), false
		}
		if out, ok := k.checkTotal(ctx, log, p, att, set, i, sim); !ok {
			return out, false
		}
	}
	set.simulated = len(set.txs)
	return "", true
}

// checkTotal adds transaction i's simulated outflows to the answer's total
// and checks the total against the bounds: the bounds are the whole
// action's, and inflows of one transaction never offset another's outflows.
func (k *Keeper) checkTotal(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, set *signedSet, i int, sim *chain.SimResult) (Outcome, bool) {
	addOutflows(&set.total, outflows(sim.Outflows))
	if err := signer.CheckOutflows(p.Kind, p.Bounds, set.total); err != nil {
		return k.refusal(ctx, log, p, att, set.first+i, err), false
	}
	if i < len(set.fees) {
		set.fees[i] = sim.Fee.Total()
	} else {
		set.fees = append(set.fees, sim.Fee.Total())
	}
	return "", true
}

// simFailed settles an attempt whose transaction i did not pass simulation.
// Failing at an instruction that spends from our wallet under our
// authority is a guard refusal: the static guard let it through within the
// bounds and the chain stopped it, so the answer tries to take more than
// the wallet has or to send it where it cannot go. Any other failure
// leaves the action retryable.
func (k *Keeper) simFailed(ctx context.Context, log *slog.Logger, p Plan, att journal.Attempt, set *signedSet, i int, err error) Outcome {
	var se *chain.SimError
	if !errors.As(err, &se) {
		log.Warn("Cannot simulate; not sending", "tx", set.first+i, "err", err)
		return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateExpired, Rule: "simulation-unavailable", Detail: err.Error()})
	}
	if ix, ok := se.Instruction(); ok && i < len(set.decoded) {
		if what, spend := k.signer.SpendAt(set.decoded[i], ix); spend {
			return k.refuse(ctx, log, p, att, string(signer.RuleSimulatedSpendFailed),
				fmt.Sprintf("transaction %d: %s fails in simulation: %v", set.first+i, what, err))
		}
	}
	log.Warn("Simulation shows the transaction would fail; not sending", "tx", set.first+i, "err", err)
	return k.settle(ctx, log, p, att, journal.Outcome{State: journal.StateExpired, Rule: "simulation-failed",
		Detail: fmt.Sprintf("transaction %d: %v", set.first+i, err)})
}
