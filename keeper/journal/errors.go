package journal

import (
	"errors"
	"fmt"
)

// Errors returned by the journal, to be matched with errors.Is.
var (
	// ErrNotFound means no action has the given ID.
	ErrNotFound = errors.New("action not found")
	// ErrIllegalTransition means the requested step is not allowed from the
	// action's current state. The error is a *TransitionError when the step
	// would change the state; RecordTip, which does not, says which states
	// allow it.
	ErrIllegalTransition = errors.New("illegal state transition")
	// ErrAttemptNotOpen means the call named an attempt that is not the
	// action's open attempt, or the action has none (or one is already open
	// when a new one was asked for).
	ErrAttemptNotOpen = errors.New("attempt not open")
	// ErrInvalid means an argument failed validation; nothing was written.
	ErrInvalid = errors.New("invalid argument")
	// ErrSchemaTooNew means the database was written by a newer keeper whose
	// schema this binary does not know.
	ErrSchemaTooNew = errors.New("journal schema is newer than this binary")
	// ErrConflict means the action changed underneath a write; re-read it.
	ErrConflict = errors.New("action changed concurrently")
)

// TransitionError reports a refused state transition.
type TransitionError struct {
	// ID is the action's ID.
	ID string
	// From is the action's current state.
	From State
	// To is the state that was asked for.
	To State
}

// Error implements error.
func (e *TransitionError) Error() string {
	return fmt.Sprintf("action %q cannot go from %s to %s", e.ID, e.From, e.To)
}

// Is makes a *TransitionError match ErrIllegalTransition.
func (e *TransitionError) Is(target error) bool {
	return target == ErrIllegalTransition
}

// wrap prefixes a non-nil *errp with "journal: " and what failed, as every
// exported method names its errors; defer it at the method's start.
func wrap(errp *error, format string, args ...any) {
	if *errp != nil {
		*errp = fmt.Errorf("journal: %s: %w", fmt.Sprintf(format, args...), *errp)
	}
}

// invalidf returns an error wrapping ErrInvalid.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}
