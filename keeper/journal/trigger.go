package journal

import (
	"context"
	"time"
)

// TriggerFiring is what one trigger of a policy did: how many times it
// fired, and its last firing (when, at which slot, and why).
type TriggerFiring struct {
	Policy    string
	Trigger   string
	Fired     int
	LastFired time.Time
	LastSlot  uint64
	Detail    string
}

// RecordTriggerFirings adds each firing's count to its trigger's total and
// makes it the trigger's last firing, in one transaction.
func (j *Journal) RecordTriggerFirings(ctx context.Context, fs []TriggerFiring) (err error) {
	if len(fs) == 0 {
		return nil
	}
	defer wrap(&err, "record trigger firings")
	return j.write(ctx, durable, func(tx dbtx) error {
		for _, f := range fs {
			if f.Policy == "" || f.Trigger == "" {
				return invalidf("a trigger firing needs a policy and a trigger")
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO trigger_firings (policy, trigger, fired, last_fired, last_slot, detail)
				VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (policy, trigger) DO UPDATE SET fired = fired + excluded.fired,
				last_fired = excluded.last_fired, last_slot = excluded.last_slot, detail = excluded.detail`,
				f.Policy, f.Trigger, f.Fired, f.LastFired.UnixNano(), int64(f.LastSlot), f.Detail); err != nil {
				return err
			}
		}
		return nil
	})
}

// TriggerFirings returns the firings of policy's triggers, by trigger.
func (j *Journal) TriggerFirings(ctx context.Context, policy string) (out []TriggerFiring, err error) {
	defer wrap(&err, "trigger firings of %s", policy)
	err = j.read(ctx, func(tx dbtx) (err error) {
		out, err = collect(ctx, tx, "trigger firings", `SELECT trigger, fired, last_fired, last_slot, detail
			FROM trigger_firings WHERE policy = ? ORDER BY trigger`, []any{policy}, func(s scanner) (TriggerFiring, error) {
			f := TriggerFiring{Policy: policy}
			var at, slot int64
			err := s.Scan(&f.Trigger, &f.Fired, &at, &slot, &f.Detail)
			f.LastFired, f.LastSlot = fromNanos(at), uint64(slot)
			return f, err
		})
		return err
	})
	return out, err
}
