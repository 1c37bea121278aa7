package journal

import (
	"context"
	"fmt"
	"slices"
)

// Settle records how the open attempt ended and moves the action to
// out.State: landed or failed (final), expired (the chain proved the attempt
// can never land; a new attempt may follow), or refused or skipped (final,
// before anything was signed). The outcome's fee and tip replace what the
// attempt recorded so far (the planned tip).
//
// An outcome commits lazily: if a power loss drops it, the attempt is open
// again, and recovery settles it anew (from the chain when its signatures
// are journaled; as abandoned, so a new attempt rebuilds, when they are not).
func (j *Journal) Settle(ctx context.Context, id string, attempt int, out Outcome) (err error) {
	defer wrap(&err, "settle %q attempt %d", id, attempt)
	if err := out.validate(StateLanded, StateFailed, StateExpired, StateRefused, StateSkipped); err != nil {
		return err
	}
	return j.step(ctx, id, attempt, out, lazy, func(tx dbtx, now int64) error {
		return updateAttempt(ctx, tx, setSettled, id, attempt,
			string(out.State), out.Rule, out.Detail, int64(out.FeeLamports), int64(out.TipLamports), now)
	})
}

// Finish ends an action that has no open attempt in a final state without
// one: refused or skipped (a guard, limit or dry run stopped it), or failed
// (it cannot be carried out). It is allowed from planned and from expired.
// It commits lazily: a lost Finish leaves the action planned or expired, which
// its policy decides afresh.
func (j *Journal) Finish(ctx context.Context, id string, out Outcome) (err error) {
	defer wrap(&err, "finish %q", id)
	if err := out.validate(StateFailed, StateRefused, StateSkipped); err != nil {
		return err
	}
	if out.FeeLamports != 0 || out.TipLamports != 0 {
		return invalidf("fees belong to an attempt; use Settle")
	}
	return j.write(ctx, lazy, func(tx dbtx) error {
		h, err := loadHead(ctx, tx, id)
		if err != nil {
			return err
		}
		if open := h.openAttempt(); open != 0 {
			return fmt.Errorf("%w: action %q has open attempt %d; settle it instead", ErrAttemptNotOpen, id, open)
		}
		if err := h.requireTransition(out.State); err != nil {
			return err
		}
		return h.moveTo(ctx, tx, out.State, out.Rule, out.Detail, j.stamp())
	})
}

// validate checks that out settles in one of the allowed states and that its
// amounts can be stored.
func (out Outcome) validate(allowed ...State) error {
	switch {
	case !slices.Contains(allowed, out.State):
		return invalidf("outcome state %q, want one of %v", out.State, allowed)
	case !fitsInt64(out.FeeLamports) || !fitsInt64(out.TipLamports):
		return invalidf("fee or tip out of range")
	}
	return nil
}
