package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Tip is one of keeper's own Jito tip transactions, signed for a bundle of
// an attempt. Every resubmission of a bundle carries a new tip transaction,
// so an attempt may hold several; only one of them can land, because each
// rides in a bundle with the same market transactions and bundles execute
// atomically.
type Tip struct {
	// Signature is the tip transaction's signature (base58), its ID on
	// chain. Required and unique across the journal, the attempts'
	// signatures included.
	Signature string
	// Blockhash is the recent blockhash the tip was signed with (base58).
	// Required.
	Blockhash string
	// Account is the Jito tip account paid (base58). Required.
	Account string
	// Lamports is the tip paid if the bundle lands. Required.
	Lamports uint64
	// Transaction is the signed wire transaction (base64); empty when not
	// kept.
	Transaction string
	// RecordedAt is when RecordTip journaled the tip (UTC); set on tips read
	// from the journal, ignored by RecordTip.
	RecordedAt time.Time
}

// RecordTip journals a tip transaction signed for the open attempt's
// bundle. Call it before the tip is sent: every signature keeper sends is
// durable first. It is allowed only while the attempt is open and the action
// is signed or submitted (otherwise an error matching ErrAttemptNotOpen or
// ErrIllegalTransition); the action's state does not change. A signature the
// journal already holds is refused with ErrInvalid. When RecordTip returns
// without error the tip is on disk.
func (j *Journal) RecordTip(ctx context.Context, id string, attempt int, t Tip) (err error) {
	defer wrap(&err, "record tip %q attempt %d", id, attempt)
	if err := t.validate(); err != nil {
		return err
	}
	return j.write(ctx, durable, func(tx dbtx) error {
		h, err := loadHead(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := h.requireOpen(attempt); err != nil {
			return err
		}
		if h.state != StateSigned && h.state != StateSubmitted {
			return fmt.Errorf("%w: action %q is %s; a tip is journaled only while it is %s or %s",
				ErrIllegalTransition, id, h.state, StateSigned, StateSubmitted)
		}
		if err := requireNewSignatures(ctx, tx, t.Signature); err != nil {
			return err
		}
		return insertTip(ctx, tx, id, attempt, t, j.stamp())
	})
}

// validate checks a tip before it is journaled.
func (t Tip) validate() error {
	switch {
	case t.Signature == "":
		return invalidf("tip has no signature")
	case t.Blockhash == "":
		return invalidf("tip %s has no blockhash", t.Signature)
	case t.Account == "":
		return invalidf("tip %s has no tip account", t.Signature)
	case t.Lamports == 0:
		return invalidf("tip %s pays zero lamports", t.Signature)
	case !fitsInt64(t.Lamports):
		return invalidf("tip %s: %d lamports is out of range", t.Signature, t.Lamports)
	}
	return nil
}

// The statements of insertTip.
var (
	countTips    = stmt(`SELECT COUNT(*) FROM tips WHERE action_id = ? AND attempt = ?`)
	insertTipRow = stmt(`INSERT INTO tips (action_id, attempt, seq, signature, blockhash, tip_account,
		lamports, signed_tx, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
)

// insertTip adds t as the next tip of the attempt, at time now.
func insertTip(ctx context.Context, tx dbtx, id string, attempt int, t Tip, now int64) error {
	var seq int
	err := tx.QueryRowContext(ctx, countTips, id, attempt).Scan(&seq)
	if err != nil {
		return fmt.Errorf("count tips: %w", err)
	}
	_, err = tx.ExecContext(ctx, insertTipRow, id, attempt, seq, t.Signature, t.Blockhash, t.Account, int64(t.Lamports), t.Transaction, now)
	if err != nil {
		return fmt.Errorf("insert tip %s: %w", t.Signature, err)
	}
	return nil
}

// requireNewSignatures refuses signatures the journal already holds, as
// transactions of an attempt or as tips, naming the first it finds.
func requireNewSignatures(ctx context.Context, tx dbtx, sigs ...string) error {
	var (
		kind, sig, id string
		attempt       int
	)
	in, args := inList(sigs)
	err := tx.QueryRowContext(ctx, `SELECT 'transaction', signature, action_id, attempt FROM signatures WHERE signature IN `+in+`
		UNION ALL SELECT 'tip', signature, action_id, attempt FROM tips WHERE signature IN `+in, append(args, args...)...).Scan(&kind, &sig, &id, &attempt)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("look up signatures: %w", err)
	}
	return invalidf("signature %s is already journaled as a %s of action %q attempt %d", sig, kind, id, attempt)
}

// CountedTip returns the tip lamports the attempt counts against fee caps
// (a policy's daily fee limit). A settled attempt counts the tip Settle recorded as paid. An
// open one counts the largest of its planned tip and the tips journaled for
// it: each tip transaction rides in a bundle with the same market
// transactions, so at most one of them can land, and the largest is the most
// the attempt can still pay.
func (a Attempt) CountedTip() uint64 {
	if a.Outcome != "" {
		return a.TipLamports
	}
	top := a.TipLamports
	for _, t := range a.Tips {
		top = max(top, t.Lamports)
	}
	return top
}
