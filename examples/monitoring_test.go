package examples_test

import (
	"os/exec"
	"testing"
)

// TestAlertRules checks and unit-tests examples/monitoring's alerting rules
// with promtool (Debian's prometheus package; .ci/run installs it).
func TestAlertRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (Debian package prometheus): the alert rules are not tested here")
	}
	for _, args := range [][]string{{"check", "rules", "keeper.rules.yml"}, {"test", "rules", "keeper.rules.test.yml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = "monitoring"
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %v: %v\n%s", args, err, out)
		}
	}
}
