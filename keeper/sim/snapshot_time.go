package sim

import "time"

// SnapshotRefresh is how often the simulated market pins a new oracle snapshot for E3's USD figures.
const SnapshotRefresh = 10 * time.Second

// snapshotAt is the time of the oracle snapshot a loans-info answer served at now uses, its snapshotTs:
// the market pins a snapshot every SnapshotRefresh from the simulator's start, and a new one whenever
// an event moves a price, so that no two answers with one snapshotTs value loans at different prices.
// (The spec says only that one pinned snapshot serves a request, and gives its timestamp; the refresh
// period is the simulator's assumption, docs/assumptions.md S-24.)
func (s *Sim) snapshotAt(now time.Time) time.Time {
	at := s.start.Add(now.Sub(s.start).Truncate(SnapshotRefresh))
	if changed := s.w.PricesAt.Load(); changed != 0 && changed > at.UnixNano() {
		at = time.Unix(0, changed)
	}
	return at
}
