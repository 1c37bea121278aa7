package journal

import (
	"context"
	"database/sql"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"time"
)

// LastLanded returns when the newest landed action of policy on target
// settled, and false if none has landed. Cooldowns are measured from it.
func (j *Journal) LastLanded(ctx context.Context, policy, target string) (time.Time, bool, error) {
	var last sql.NullInt64
	err := j.db.QueryRowContext(ctx, `SELECT MAX(settled_at) FROM actions
		WHERE policy = ? AND target = ? AND state = ?`, policy, target, string(StateLanded)).Scan(&last)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("journal: last landed %q %q: %w", policy, target, err)
	}
	return fromNullNanos(last), last.Valid, nil
}

// spendingStates are the states of actions that spent, or may still spend,
// their amount: landed ones and every non-final one.
var spendingStates = []State{StatePlanned, StateBuilt, StateSigned, StateSubmitted, StateExpired, StateLanded}

// pursuedStates are the states of actions CountSince counts: spending ones
// and failed ones.
var pursuedStates = append(slices.Clone(spendingStates), StateFailed)

// SpentSince returns the total Amount of mint over actions created at or
// after since that landed or are still in flight (dry runs excluded): what a
// daily spend cap must count. A zero since counts everything.
func (j *Journal) SpentSince(ctx context.Context, since time.Time, mint string) (uint64, error) {
	in, args := stateList(spendingStates)
	args = append([]any{mint, lowerBound(since)}, args...)
	var total uint64
	err := eachRow(ctx, j.db, "amounts", `SELECT amount FROM actions
		WHERE mint = ? AND created_at >= ? AND dry_run = 0 AND state IN `+in, args, func(rows *sql.Rows) error {
		var amount string
		err := rows.Scan(&amount)
		if err == nil {
			total, err = addAmount(total, amount)
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("journal: spent since %s of %q: %w", since.UTC().Format(time.RFC3339), mint, err)
	}
	return total, nil
}

// addAmount adds a stored decimal amount to total, refusing overflow.
func addAmount(total uint64, amount string) (uint64, error) {
	v, err := strconv.ParseUint(amount, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("stored amount %q: %w", amount, err)
	}
	sum, carry := bits.Add64(total, v, 0)
	if carry != 0 {
		return 0, fmt.Errorf("total amount overflows uint64")
	}
	return sum, nil
}

// FeesSince returns the lamports paid or committed in fees and tips by
// attempts started at or after since (dry runs excluded). A settled attempt
// counts the fee and tip Settle recorded. An attempt in flight counts its
// fee so far and the largest of its planned tip and the tips journaled by
// RecordTip: only one of an attempt's tip transactions can land (each rides
// with the same market transactions in an atomic bundle), so the largest is
// the most it can still pay. Attempt.CountedTip is the same rule for one
// attempt. A zero since counts everything.
func (j *Journal) FeesSince(ctx context.Context, since time.Time) (uint64, error) {
	var total int64
	err := j.db.QueryRowContext(ctx, `SELECT COALESCE(SUM(t.fee_lamports +
			CASE WHEN t.outcome = '' AND m.top > t.tip_lamports THEN m.top ELSE t.tip_lamports END), 0)
		FROM attempts t JOIN actions a ON a.id = t.action_id
		LEFT JOIN (SELECT action_id, attempt, MAX(lamports) AS top FROM tips GROUP BY action_id, attempt) m
			ON m.action_id = t.action_id AND m.attempt = t.attempt
		WHERE t.created_at >= ? AND a.dry_run = 0`, lowerBound(since)).Scan(&total)
	if err != nil {
		return 0, fmt.Errorf("journal: fees since %s: %w", since.UTC().Format(time.RFC3339), err)
	}
	return uint64(max(total, 0)), nil
}

// CountSince returns how many actions of policy were created at or after
// since and pursued: in flight, landed or failed. Dry runs and actions that
// were refused or skipped do not count. A zero since counts everything.
func (j *Journal) CountSince(ctx context.Context, policy string, since time.Time) (int, error) {
	in, args := stateList(pursuedStates)
	args = append([]any{policy, lowerBound(since)}, args...)
	var n int
	err := j.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM actions
		WHERE policy = ? AND created_at >= ? AND dry_run = 0 AND state IN `+in, args...).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("journal: count since %s of %q: %w", since.UTC().Format(time.RFC3339), policy, err)
	}
	return n, nil
}
