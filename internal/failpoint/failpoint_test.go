package failpoint

import (
	"slices"
	"testing"
)

// TestPointsAreDistinct keeps the names unique: a crash test arms points by name.
func TestPointsAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Points {
		if seen[p] || p == "" {
			t.Errorf("point %q repeated or empty", p)
		}
		seen[p] = true
	}
	if !slices.Contains(Points, InRecovery) || len(Points) != 8 {
		t.Errorf("points %v", Points)
	}
}

// TestHitIsANoOpInANormalBuild: without the build tag no point kills anything, whatever the
// environment says.
func TestHitIsANoOpInANormalBuild(t *testing.T) {
	if Enabled {
		t.Skip("built with failpoints")
	}
	t.Setenv(Env, AfterIntent)
	for _, p := range Points {
		Hit(p)
	}
}
