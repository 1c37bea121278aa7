package journal

import (
	"context"
	"fmt"
	"strings"
)

// RecordBuilt journals the transactions the market API built for the open
// attempt and moves the action to built.
func (j *Journal) RecordBuilt(ctx context.Context, id string, attempt int, b Build) (err error) {
	defer wrap(&err, "record built %q attempt %d", id, attempt)
	if err := b.validate(); err != nil {
		return err
	}
	return j.step(ctx, id, attempt, Outcome{State: StateBuilt}, lazy, func(tx dbtx, now int64) error {
		if err := updateAttempt(ctx, tx, setBuilt, id, attempt,
			string(b.Mode), int64(b.TipLamports), now); err != nil {
			return err
		}
		rows := make([][]any, len(b.Transactions))
		for i, body := range b.Transactions {
			rows[i] = []any{id, attempt, i, body}
		}
		if err := insertRows(ctx, tx, "attempt_transactions", "action_id, attempt, seq, body", rows); err != nil {
			return fmt.Errorf("insert transactions: %w", err)
		}
		return nil
	})
}

// validate checks a build before it is journaled.
func (b Build) validate() error {
	switch {
	case len(b.Transactions) == 0:
		return invalidf("no transactions")
	case !b.Mode.Valid():
		return invalidf("submit mode %q, want %q or %q", b.Mode, ModeRPC, ModeBundle)
	case !fitsInt64(b.TipLamports):
		return invalidf("tip %d lamports is out of range", b.TipLamports)
	}
	for i, tx := range b.Transactions {
		if tx == "" {
			return invalidf("transaction %d is empty", i)
		}
	}
	return nil
}

// RecordSigned journals the signed transactions of the open attempt, with
// their signatures and blockhashes, and moves the action to signed. Call it
// before sending anything: after a crash the signatures are how the chain
// is asked whether the attempt landed.
func (j *Journal) RecordSigned(ctx context.Context, id string, attempt int, sigs []SignedTx) (err error) {
	defer wrap(&err, "record signed %q attempt %d", id, attempt)
	if err := validateSigned(sigs); err != nil {
		return err
	}
	return j.step(ctx, id, attempt, Outcome{State: StateSigned}, durable, func(tx dbtx, now int64) error {
		if err := updateAttempt(ctx, tx, setSigned, id, attempt, now); err != nil {
			return err
		}
		names := make([]string, len(sigs))
		rows := make([][]any, len(sigs))
		for i, s := range sigs {
			names[i] = s.Signature
			rows[i] = []any{id, attempt, i, s.Signature, s.Blockhash, int64(s.LastValidBlockHeight), s.Transaction}
		}
		if err := requireNewSignatures(ctx, tx, names...); err != nil {
			return err
		}
		err := insertRows(ctx, tx, "signatures", "action_id, attempt, seq, signature, blockhash, last_valid_block_height, signed_tx", rows)
		if err != nil {
			return fmt.Errorf("insert signatures: %w", err)
		}
		return nil
	})
}

// validateSigned checks signed transactions before they are journaled.
func validateSigned(sigs []SignedTx) error {
	if len(sigs) == 0 {
		return invalidf("no signatures")
	}
	seen := make(map[string]bool, len(sigs))
	for i, s := range sigs {
		switch {
		case s.Signature == "":
			return invalidf("signature %d is empty", i)
		case s.Blockhash == "":
			return invalidf("signature %d (%s) has no blockhash", i, s.Signature)
		case !fitsInt64(s.LastValidBlockHeight):
			return invalidf("signature %d (%s): last valid block height out of range", i, s.Signature)
		case seen[s.Signature]:
			return invalidf("signature %s appears twice", s.Signature)
		}
		seen[s.Signature] = true
	}
	return nil
}

// RecordSubmitted journals that the open attempt was handed to RPC or Jito
// and moves the action to submitted.
func (j *Journal) RecordSubmitted(ctx context.Context, id string, attempt int) (err error) {
	defer wrap(&err, "record submitted %q attempt %d", id, attempt)
	return j.step(ctx, id, attempt, Outcome{State: StateSubmitted}, lazy, func(tx dbtx, now int64) error {
		return updateAttempt(ctx, tx, setSubmitted, id, attempt, now)
	})
}

// step runs one write step of the open attempt: it checks the attempt and
// the transition to state to.State, lets fn write the attempt's details, and
// moves the action with to's rule and detail, all in one transaction
// committed as d says.
func (j *Journal) step(ctx context.Context, id string, attempt int, to Outcome, d durability, fn func(tx dbtx, now int64) error) error {
	return j.write(ctx, d, func(tx dbtx) error {
		h, err := loadHead(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := h.requireOpen(attempt); err != nil {
			return err
		}
		if err := h.requireTransition(to.State); err != nil {
			return err
		}
		now := j.stamp()
		if err := fn(tx, now); err != nil {
			return err
		}
		return h.moveTo(ctx, tx, to.State, to.Rule, to.Detail, now)
	})
}

// fitsInt64 reports whether v can be stored in a signed 64-bit column.
func fitsInt64(v uint64) bool {
	return v <= 1<<63-1
}

// The attempt updates of the action path (see updateAttempt).
var (
	setBuilt     = attemptUpdate(`mode = ?, tip_lamports = ?, built_at = ?`)
	setSigned    = attemptUpdate(`signed_at = ?`)
	setSubmitted = attemptUpdate(`submitted_at = ?`)
	setSettled   = attemptUpdate(`outcome = ?, rule = ?, detail = ?, fee_lamports = ?, tip_lamports = ?, settled_at = ?`)
)

// attemptUpdate registers the statement that sets an attempt's columns:
// set is the SET list ("col = ?, ...").
func attemptUpdate(set string) string {
	return stmt(`UPDATE attempts SET ` + set + ` WHERE action_id = ? AND attempt = ?`)
}

// updateAttempt runs query, an attemptUpdate, with args, the SET list's
// values, on attempt of action id.
func updateAttempt(ctx context.Context, tx dbtx, query, id string, attempt int, args ...any) error {
	if _, err := tx.ExecContext(ctx, query, append(args, id, attempt)...); err != nil {
		return fmt.Errorf("update attempt: %w", err)
	}
	return nil
}

// insertRows inserts rows into table's columns cols with one statement,
// so that n rows cost one statement's execution instead of n. Every row
// holds one value per column.
func insertRows(ctx context.Context, tx dbtx, table, cols string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	n := len(rows[0])
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " (" + cols + ") VALUES ")
	args := make([]any, 0, n*len(rows))
	for i, r := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tuple)
		args = append(args, r...)
	}
	_, err := tx.ExecContext(ctx, b.String(), args...)
	return err
}
