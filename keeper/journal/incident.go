package journal

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"
)

// Incident is one alert incident: an alert policy's condition holding for a
// target, from the run that found it to the run that found it cleared.
type Incident struct {
	ID       int64
	Policy   string
	Target   string
	Severity string
	// Message is the alert's rendered message when the incident opened.
	Message  string
	OpenedAt time.Time
	// ResolvedAt is when a run found the condition cleared; zero while open.
	ResolvedAt time.Time
}

// Open reports whether the incident has not been resolved.
func (in Incident) Open() bool { return in.ResolvedAt.IsZero() }

// OpenIncident journals an open incident for in's policy and target, unless
// one is open already; opened reports whether this call opened it (the
// time to page), and the incident returned is the open one.
func (j *Journal) OpenIncident(ctx context.Context, in Incident) (open Incident, opened bool, err error) {
	defer wrap(&err, "open incident %s/%s", in.Policy, in.Target)
	if in.Policy == "" || in.Target == "" {
		return Incident{}, false, invalidf("an incident needs a policy and a target")
	}
	err = j.write(ctx, durable, func(tx dbtx) error {
		now := j.stamp()
		n, err := rowsAffected(tx.ExecContext(ctx, `INSERT INTO incidents (policy, target, severity, message, opened_at)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, in.Policy, in.Target, in.Severity, in.Message, now))
		if err != nil {
			return err
		}
		opened = n == 1
		row := tx.QueryRowContext(ctx, `SELECT `+incidentColumns+` FROM incidents
			WHERE policy = ? AND target = ? AND resolved_at IS NULL`, in.Policy, in.Target)
		open, err = scanIncident(row)
		return err
	})
	return open, opened, err
}

// ResolveIncidents resolves policy's open incidents whose target is in
// cleared (those a run found no longer firing), and returns them: each is
// resolved once, whichever process or run finds it cleared.
func (j *Journal) ResolveIncidents(ctx context.Context, policy string, cleared []string) (resolved []Incident, err error) {
	defer wrap(&err, "resolve incidents of %s", policy)
	err = j.write(ctx, durable, func(tx dbtx) error {
		open, err := queryIncidents(ctx, tx, `WHERE policy = ? AND resolved_at IS NULL ORDER BY id`, policy)
		if err != nil {
			return err
		}
		now := j.stamp()
		for _, in := range open {
			if !slices.Contains(cleared, in.Target) {
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE incidents SET resolved_at = ? WHERE id = ?`, now, in.ID); err != nil {
				return err
			}
			in.ResolvedAt = fromNanos(now)
			resolved = append(resolved, in)
		}
		return nil
	})
	return resolved, err
}

// IncidentFilter selects incidents; the zero value selects all.
type IncidentFilter struct {
	Policy string
	// Open keeps only the incidents not resolved yet.
	Open bool
	// Since keeps incidents open at or after it, or resolved at or after it.
	Since time.Time
	Limit int
}

// Incidents lists incidents, newest first.
func (j *Journal) Incidents(ctx context.Context, f IncidentFilter) (out []Incident, err error) {
	defer wrap(&err, "incidents")
	var w clause
	w.and(f.Policy != "", "policy = ?", f.Policy)
	w.and(f.Open, "resolved_at IS NULL")
	since := f.Since.UnixNano()
	w.and(!f.Since.IsZero(), "(resolved_at IS NULL OR resolved_at >= ? OR opened_at >= ?)", since, since)
	q := w.String() + " ORDER BY opened_at DESC, id DESC"
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	return readAll(ctx, j, queryIncidents, q, w.args...)
}

// incidentColumns are the columns scanIncident reads, in order.
const incidentColumns = `id, policy, target, severity, message, opened_at, resolved_at`

// queryIncidents reads the incidents the clause where selects.
func queryIncidents(ctx context.Context, q querier, where string, args ...any) ([]Incident, error) {
	return collect(ctx, q, "incidents", `SELECT `+incidentColumns+` FROM incidents `+where, args, scanIncident)
}

// scanIncident reads one row of incidentColumns.
func scanIncident(s scanner) (Incident, error) {
	var in Incident
	var opened int64
	var resolved sql.NullInt64
	err := s.Scan(&in.ID, &in.Policy, &in.Target, &in.Severity, &in.Message, &opened, &resolved)
	in.OpenedAt, in.ResolvedAt = fromNanos(opened), fromNullNanos(resolved)
	return in, err
}
