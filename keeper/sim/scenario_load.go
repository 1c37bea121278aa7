package sim

import (
	_ "embed"
	"fmt"
	"os"
	"time"

	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/genesis"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

//go:embed default_scenario.yaml
var defaultScenarioYAML []byte

// DefaultScenarioFile is the name positions in the embedded default scenario refer to.
const DefaultScenarioFile = "default_scenario.yaml"

// DefaultScenario returns the embedded default scenario, which exercises every policy kind within
// about a minute of sim time (see the package documentation).
func DefaultScenario() (*scenario.Scenario, error) {
	return ParseScenario(DefaultScenarioFile, defaultScenarioYAML)
}

// DefaultScenarioYAML returns the text of the embedded default scenario.
func DefaultScenarioYAML() []byte { return append([]byte(nil), defaultScenarioYAML...) }

// LoadScenario reads and parses a scenario file.
func LoadScenario(path string) (*scenario.Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sim: read scenario: %w", err)
	}
	return ParseScenario(path, data)
}

// ParseScenario parses a scenario strictly: unknown keys, duplicate keys, mistyped values and every
// semantic problem (unknown references, bad amounts or offsets, impossible values) are reported
// together, each as file:line:col: message.
func ParseScenario(file string, data []byte) (*scenario.Scenario, error) {
	sc, err := scenario.Parse(file, data)
	if err != nil {
		return nil, err
	}
	if _, err := genesis.Compile(sc, ids.DerivedKey("wallet", genesis.WalletPlaceholder), time.Unix(0, 0)); err != nil {
		return nil, err
	}
	return sc, nil
}

// DemoScenario returns the scenario `keeper run --sim` plays: the default one, with a market that
// packs one term per strategy-update transaction, so that updating a strategy's two terms is an
// answer of two transactions, the second applying only after the first; and a network that drops
// the second of them the first time, so that keeper lands the first, sees the second's blockhash
// expire, and continues with it alone.
func DemoScenario() (*scenario.Scenario, error) {
	sc, err := DefaultScenario()
	if err != nil {
		return nil, err
	}
	sc.Market = scenario.MarketSpec{UpdateItemsPerTransaction: 1, DropUpdateStep: 2}
	return sc, nil
}
