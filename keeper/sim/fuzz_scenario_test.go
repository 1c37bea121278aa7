package sim

import "testing"

// FuzzParseScenario feeds arbitrary documents to the scenario loader: nothing may panic.
func FuzzParseScenario(f *testing.F) {
	f.Add(DefaultScenarioYAML())
	f.Add([]byte("name: x\nwallet: {sol: \"1\"}\n"))
	f.Add([]byte("loans:\n  - {name: a, borrower: $wallet}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseScenario("fuzz.yaml", data)
	})
}
