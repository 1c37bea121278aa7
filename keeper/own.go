package keeper

import "fmt"

// journalOwner is a journal that can make this process its only owner (see journal.Journal.Own).
type journalOwner interface {
	Own() error
}

// own makes this process the journal's only owner before anything is recovered or acted on, so
// that two daemons never act on one journal. Journals without owners (tests' fakes) pass.
func (k *Keeper) own() error {
	o, ok := k.journal.(journalOwner)
	if !ok {
		return nil
	}
	if err := o.Own(); err != nil {
		return fmt.Errorf("keeper: %w", err)
	}
	return nil
}
