package deptest

import (
	"strings"
	"testing"
)

// TestSimulatorDoesNotLinkTheClient: no non-test package of the simulator (keeper/sim and below)
// links keeper's market client or its model of the spec (keeper/market and below), directly or
// through another package. The simulator encodes its answers, and decodes its requests, with its own
// wire types written from the spec (keeper/sim/internal/apiwire): were it to share the client's, a
// misreading of the spec would be the same on both sides and no test could catch it.
func TestSimulatorDoesNotLinkTheClient(t *testing.T) {
	client := module + "/keeper/market"
	for path := range deps(t, "./keeper/sim/...") {
		if path == client || strings.HasPrefix(path, client+"/") {
			t.Errorf("./keeper/sim/... links %s: the simulator speaks the spec with its own wire types (keeper/sim/internal/apiwire)", path)
		}
	}
}
