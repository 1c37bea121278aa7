package signer

import (
	"errors"
	"fmt"
)

// sanitize applies the structural rules the chain applies before it runs a
// message, plus one of its load-time rules (no account listed twice among the
// static keys). A message that breaks them cannot land, and the guard's view
// of it could differ from the chain's, so it is refused outright.
func (m *message) sanitize() error {
	h := m.header
	if h.numReadonlySignedAccounts >= h.numRequiredSignatures {
		return fmt.Errorf("header: %d required signatures, %d of them read-only: the fee payer must be a writable signer",
			h.numRequiredSignatures, h.numReadonlySignedAccounts)
	}
	if int(h.numRequiredSignatures)+int(h.numReadonlyUnsignedAccounts) > len(m.keys) {
		return fmt.Errorf("header: %d signers and %d read-only unsigned accounts but only %d account keys",
			h.numRequiredSignatures, h.numReadonlyUnsignedAccounts, len(m.keys))
	}
	total := len(m.keys) + m.numLookupAccounts()
	if total > maxAccounts {
		return fmt.Errorf("%d accounts referenced, at most %d allowed", total, maxAccounts)
	}
	if err := m.sanitizeLookups(); err != nil {
		return err
	}
	if err := m.sanitizeInstructions(total); err != nil {
		return err
	}
	return m.uniqueKeys()
}

func (m *message) sanitizeLookups() error {
	for i, l := range m.lookups {
		if len(l.writable)+len(l.readonly) == 0 {
			return fmt.Errorf("address table lookup %d loads no account", i)
		}
	}
	return nil
}

func (m *message) sanitizeInstructions(total int) error {
	for i, ix := range m.ixs {
		switch {
		case ix.program == 0:
			return fmt.Errorf("instruction %d: the fee payer cannot be the program", i)
		case int(ix.program) >= len(m.keys):
			return fmt.Errorf("instruction %d: program index %d is not a static account key (there are %d); programs cannot come from lookup tables",
				i, ix.program, len(m.keys))
		}
		for _, a := range ix.accounts {
			if int(a) >= total {
				return fmt.Errorf("instruction %d: account index %d out of range (%d accounts)", i, a, total)
			}
		}
	}
	return nil
}

var errDuplicateKey = errors.New("an account key is listed twice")

func (m *message) uniqueKeys() error {
	for i := 1; i < len(m.keys); i++ {
		for j := range i {
			if m.keys[i] == m.keys[j] {
				return fmt.Errorf("account keys %d and %d (%s): %w", j, i, m.keys[i], errDuplicateKey)
			}
		}
	}
	return nil
}
