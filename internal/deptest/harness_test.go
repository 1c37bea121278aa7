package deptest

import (
	"slices"
	"testing"
)

// policyTest is the harness of `keeper test`: policy unit tests, given market state.
const policyTest = module + "/policies/policytest"

// TestRuntimeLinksNoTestHarness: the runtime (package keeper) and everything the keeper binary
// links, but the command that runs `keeper test`, do not import the policy test harness. What the
// runtime needs of the test file format (writing a captured situation) is policies/capture.
func TestRuntimeLinksNoTestHarness(t *testing.T) {
	for path := range deps(t, "./keeper") {
		if path == policyTest {
			t.Errorf("./keeper links %s: the runtime does not carry the test harness", path)
		}
	}
	for path, p := range deps(t, "./cmd/keeper") {
		if path != module+"/cmd/keeper" && slices.Contains(p.Imports, policyTest) {
			t.Errorf("%s imports %s: only cmd/keeper (for `keeper test`) may", path, policyTest)
		}
	}
}
