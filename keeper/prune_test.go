package keeper

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/config"
)

// recordingPruner records the cutoffs it is asked to prune at.
type recordingPruner struct {
	Journal
	cutoffs []time.Time
}

// Prune records cutoff.
func (p *recordingPruner) Prune(_ context.Context, cutoff time.Time) (int, error) {
	p.cutoffs = append(p.cutoffs, cutoff)
	return 3, nil
}

// TestPruneAtRetention prunes at now − journal.retention, and not at all with retention 0.
func TestPruneAtRetention(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		retention time.Duration
		want      []time.Time
	}{
		{config.DefaultRetention, []time.Time{now.Add(-config.DefaultRetention)}},
		{0, nil},
	} {
		j := &recordingPruner{}
		u := &upkeep{journal: j, retention: c.retention, now: func() time.Time { return now }, logger: slog.New(slog.DiscardHandler)}
		u.prune(t.Context())
		if len(j.cutoffs) != len(c.want) || len(c.want) == 1 && !j.cutoffs[0].Equal(c.want[0]) {
			t.Errorf("retention %s: pruned at %v, want %v", c.retention, j.cutoffs, c.want)
		}
	}
}
