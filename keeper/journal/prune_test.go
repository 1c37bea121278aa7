package journal

import (
	"reflect"
	"testing"
	"time"
)

// TestPruneKeepsWhatIsNotFinal prunes the query fixture at a cutoff after every settlement: the
// final actions go with all their rows, and the in-flight, expired and planned ones stay, however
// old.
func TestPruneKeepsWhatIsNotFinal(t *testing.T) {
	j := queryFixture(t)
	n, err := j.Prune(t.Context(), dayStart.Add(48*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	left, err := j.List(t.Context(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got := ids(left)
	if want := []string{"inflight", "expired", "sol-plan"}; !sameSet(got, want) || n != 7 {
		t.Fatalf("after pruning: %v left, %d deleted; want %v left, 7 deleted", got, n, want)
	}
	for _, table := range pruneTables {
		var rows int
		if err := j.db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM `+table+` WHERE action_id NOT IN (SELECT id FROM actions)`).Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if rows != 0 {
			t.Errorf("%d rows of %s left without their action", rows, table)
		}
	}
	pending, err := j.Pending(t.Context())
	if err != nil || !reflect.DeepEqual(ids(pending), []string{"inflight", "expired", "sol-plan"}) {
		t.Errorf("Pending after pruning = %v, %v", ids(pending), err)
	}
}

// TestPruneHonoursTheCutoff deletes only what settled before the cutoff.
func TestPruneHonoursTheCutoff(t *testing.T) {
	j := queryFixture(t)
	// old-landed settled at dayStart−1h; landed-1 at dayStart+2h.
	n, err := j.Prune(t.Context(), dayStart)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Get(t.Context(), "old-landed"); err == nil || n != 1 {
		t.Errorf("old-landed still there (%d deleted), want it pruned alone", n)
	}
	if _, err := j.Get(t.Context(), "landed-1"); err != nil {
		t.Errorf("landed-1 settled after the cutoff: %v", err)
	}
	if n, err := j.Prune(t.Context(), time.Time{}); n != 0 || err != nil {
		t.Errorf("zero cutoff: %d, %v; want nothing pruned", n, err)
	}
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return len(a) == len(b)
}
