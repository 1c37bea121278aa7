package action

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/signer"
)

// targetClaims keeps the actions of one kind by different policies off one
// target at a time. A policy's own in-flight actions are kept off by its
// history; a claim covers the others: an action of another policy running
// now (held), one journaled as possibly still landing (asked of the
// journal), and one that ended after the run's reads began (changed).
// Actions of different kinds on one target (a strategy's update and a
// withdrawal from it) do not wait for each other.
type targetClaims struct {
	mu      sync.Mutex
	held    map[claimKey]string    // the ID of the action acting on it now
	changed map[claimKey]time.Time // when the last action that may have changed it ended
}

// claimKey is what a claim holds: one kind of work on one target.
type claimKey struct{ kind, target string }

func claimOf(p Plan) claimKey { return claimKey{claimKind(p.Kind), p.Target} }

// claimKind is the kind of work a plan of kind k claims: a repay from
// collateral is a repay, so two repay policies never act on one loan at once
// and each sees the other's landing as a change of the target.
func claimKind(k signer.Kind) string {
	if k == signer.KindRepayCollateral {
		return string(signer.KindRepay)
	}
	return string(k)
}

func newTargetClaims() *targetClaims {
	return &targetClaims{held: map[claimKey]string{}, changed: map[claimKey]time.Time{}}
}

// take claims p's target for p, or says why it cannot. The reads of p's
// run began at p.ReadsFrom; a zero ReadsFrom skips the staleness check.
func (c *targetClaims) take(p Plan) (reason string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := claimOf(p)
	if id, held := c.held[key]; held && id != p.ID {
		return "action " + ShortID(id) + " of the same kind is acting on the target now", false
	}
	if at, seen := c.changed[key]; seen && !p.ReadsFrom.IsZero() && at.After(p.ReadsFrom) {
		return fmt.Sprintf("an action of the same kind on the target ended at %s, after this run read it at %s",
			at.UTC().Format(time.RFC3339Nano), p.ReadsFrom.UTC().Format(time.RFC3339Nano)), false
	}
	c.held[key] = p.ID
	return "", true
}

// takeIdle claims p's target for a sweep of p's journaled action: only
// when no action path holds it, p's own included, and under a mark no plan
// shares, so that a run planning p meanwhile finds the target busy.
func (c *targetClaims) takeIdle(p Plan) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := claimOf(p)
	if _, held := c.held[key]; held {
		return false
	}
	c.held[key] = sweepMark + p.ID
	return true
}

// sweepMark prefixes the ID a sweep holds a target under (see takeIdle).
const sweepMark = "sweep:"

// release frees p's target; when p's outcome may have changed it, reads
// taken before now are stale for it.
func (c *targetClaims) release(p Plan, o Outcome, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := claimOf(p)
	if id := c.held[key]; id == p.ID || id == sweepMark+p.ID {
		delete(c.held, key)
	}
	if mayHaveChanged(o) {
		c.changed[key] = now
	}
	for k, at := range c.changed {
		if now.Sub(at) > changeMemory {
			delete(c.changed, k)
		}
	}
}

// changeMemory is how long a change time is kept: far longer than a run
// lasts (at most fifteen minutes), so no run still deciding began reading
// before a change it forgot.
const changeMemory = time.Hour

// claim claims p's kind of work on its target for the action path, asking the journal
// for another policy's action on it that may still land. It returns the
// release to call with the outcome, or false and the reason it is busy.
func (c *targetClaims) claim(ctx context.Context, j Log, p Plan, now func() time.Time, changed func()) (release func(Outcome), reason string, ok bool) {
	if reason, ok := c.take(p); !ok {
		return nil, reason, false
	}
	release = func(o Outcome) {
		c.release(p, o, now())
		if mayHaveChanged(o) {
			changed()
		}
	}
	open, err := j.List(ctx, journal.Filter{Target: p.Target, States: journal.InFlightStates()})
	if err != nil {
		release(OutcomeBusy)
		return nil, fmt.Sprintf("cannot read the journal for the target's open actions: %v", err), false
	}
	for _, a := range open {
		if a.ID != p.ID && claimKind(signer.Kind(a.Kind)) == claimKind(p.Kind) && !a.DryRun && !a.Resumable() {
			release(OutcomeBusy)
			return nil, fmt.Sprintf("action %s of policy %s on the target is %s and may still land", ShortID(a.ID), a.Policy, a.State), false
		}
	}
	return release, "", true
}
