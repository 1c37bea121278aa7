package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/signer"
)

// simulate simulates the unsigned transactions of one answer (our slot
// zero; see answer.unsigned) as an ordered sequence and checks the
// wallet's outflows over all of them against the plan's bounds:
//
//   - one transaction: simulated now, or a moment ago beside the fee read
//     when those are its bytes (see simulateOne);
//   - a bundle: simulated in order on accumulated state with simulateBundle;
//     where the endpoint lacks it, each transaction is simulated on the
//     state now, and one that fails there (it may depend on an earlier one)
//     is bounded by the static guard only;
//   - an RPC sequence: the first transaction now, each later one right
//     before its own send, on the state its predecessors left (see
//     submitSequence).
func (ans *answer) simulate(ctx context.Context) (Outcome, bool) {
	if len(ans.unsigned) > 1 && ans.p.Submit.Mode == journal.ModeBundle {
		return ans.simulateBundle(ctx)
	}
	return ans.simulateNext(ctx)
}

// simulateNext simulates the next unsimulated transaction of the answer
// on the state now and adds its outflows to the total.
func (ans *answer) simulateNext(ctx context.Context) (Outcome, bool) {
	i := ans.simulated
	sim, err := ans.simulateOne(ctx, i)
	if err != nil {
		return ans.simFailed(ctx, i, err), false
	}
	ans.simulated++
	return ans.checkTotal(ctx, i, sim)
}

// simulateOne simulates unsigned transaction i on the state now. The
// first the guard simulates may be the very transaction the route
// simulated beside the fee read (see readFeesAndSimulate), a moment ago
// and for the same wallet: when its unsigned bytes are the same, that
// result (or failure) is this one, and the round trip is not made again.
// The route's simulation serves once.
func (ans *answer) simulateOne(ctx context.Context, i int) (*chain.SimResult, error) {
	if pre := ans.asBuilt; pre != nil {
		ans.asBuilt = nil
		if bytes.Equal(pre.unsigned, ans.unsigned[i]) {
			return pre.res, pre.err
		}
	}
	return ans.e.cfg.Submitter.Simulate(ctx, ans.unsigned[i], ans.e.wallet)
}

// simulateBundle simulates a bundle's transactions in order.
func (ans *answer) simulateBundle(ctx context.Context) (Outcome, bool) {
	sims, err := ans.e.cfg.Submitter.SimulateSequence(ctx, ans.unsigned, ans.e.wallet)
	if errors.Is(err, chain.ErrBundleSimUnavailable) {
		return ans.simulateEach(ctx)
	}
	var se *chain.SimError
	if errors.As(err, &se) && se.Index < len(sims) {
		sims = sims[:se.Index]
	} else if err != nil {
		return ans.simFailed(ctx, 0, err), false
	}
	for i, sim := range sims {
		ans.simulated++
		if out, ok := ans.checkTotal(ctx, i, sim); !ok {
			return out, false
		}
	}
	if se != nil {
		return ans.simFailed(ctx, se.Index, se), false
	}
	return "", true
}

// simulateEach simulates a bundle's transactions one by one on the state
// now, when no endpoint simulates bundles: the first must pass; a later one
// that fails may depend on an earlier one and is left to the static guard.
func (ans *answer) simulateEach(ctx context.Context) (Outcome, bool) {
	for i := range ans.unsigned {
		sim, err := ans.simulateOne(ctx, i)
		var se *chain.SimError
		switch {
		case err == nil:
		case i > 0 && errors.As(err, &se):
			ans.log.Info("Transaction cannot be simulated before the ones it follows; bounded statically only", "tx", ans.first+i, "err", err)
			ans.fees = append(ans.fees, 0)
			continue
		default:
			return ans.simFailed(ctx, i, err), false
		}
		if out, ok := ans.checkTotal(ctx, i, sim); !ok {
			return out, false
		}
	}
	ans.simulated = len(ans.unsigned)
	return "", true
}

// checkTotal adds transaction i's simulated outflows to the answer's total
// and checks the total against the bounds: the bounds are the whole
// action's, and inflows of one transaction never offset another's outflows.
func (ans *answer) checkTotal(ctx context.Context, i int, sim *chain.SimResult) (Outcome, bool) {
	addOutflows(&ans.total, outflows(sim.Outflows))
	// Rent guard (simwire, issue #40 item 10): the one call of the rent rule on the action path.
	if err := signer.CheckWalletRent(ans.p.Kind, sim.Outflows.StrandsWallet); err != nil {
		return ans.refusal(ctx, ans.first+i, err), false
	}
	if err := signer.CheckOutflows(ans.p.Kind, ans.p.Bounds, ans.total); err != nil {
		return ans.refusal(ctx, ans.first+i, err), false
	}
	if ans.p.Swap != nil {
		if err := signer.CheckSwapOutflows(ans.p.Bounds, *ans.p.Swap, outflows(sim.Outflows)); err != nil {
			return ans.refusal(ctx, ans.first+i, err), false
		}
	}
	if i < len(ans.fees) {
		ans.fees[i] = sim.Fee.Total()
	} else {
		ans.fees = append(ans.fees, sim.Fee.Total())
	}
	return "", true
}

// simFailed settles an attempt whose transaction i did not pass simulation.
// Failing at an instruction that spends from our wallet under our
// authority is a guard refusal: the static guard let it through within the
// bounds and the chain stopped it, so the answer tries to take more than
// the wallet has or to send it where it cannot go. Any other failure
// leaves the action retryable.
func (ans *answer) simFailed(ctx context.Context, i int, err error) Outcome {
	var se *chain.SimError
	if !errors.As(err, &se) {
		ans.log.Warn("Cannot simulate; not sending", "tx", ans.first+i, "err", err)
		return ans.settle(ctx, journal.Outcome{State: journal.StateExpired, Rule: journal.RuleSimUnavailable, Detail: err.Error()})
	}
	if acct, ok := se.RentAccount(); ok && acct == 0 {
		// The fee payer, keeper's wallet, would be left under its rent-exempt
		// minimum: the runtime refuses that every time, so it is the guard's
		// stranded-wallet refusal, not a failure a later run may retry.
		return ans.refuse(ctx, journal.Rule(signer.RuleStrandedWallet),
			fmt.Sprintf("transaction %d: the simulation leaves the wallet under its rent-exempt minimum: %v", ans.first+i, err))
	}
	if ix, ok := se.Instruction(); ok && i < len(ans.decoded) {
		if what, spend := ans.e.cfg.Signer.SpendAt(ans.decoded[i], ix); spend {
			return ans.refuse(ctx, journal.Rule(signer.RuleSimulatedSpendFailed),
				fmt.Sprintf("transaction %d: %s fails in simulation: %v", ans.first+i, what, err))
		}
	}
	ans.log.Warn("Simulation shows the transaction would fail; not sending", "tx", ans.first+i, "err", err)
	return ans.settle(ctx, journal.Outcome{State: journal.StateExpired, Rule: journal.RuleSimFailed,
		Detail: fmt.Sprintf("transaction %d: %v", ans.first+i, err)})
}
