package sim

import (
	"fmt"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/inject"
)

// FaultControl changes the faults of the three services while the simulator runs: the whole
// configuration, the script of a market endpoint, or the hostile transactions the market builds next.
type FaultControl struct {
	chain *chainsim.Chain
	state *faults.State
	api   *marketServer
}

// Set replaces the fault configuration of all three services, restarting scripts and random
// streams.
func (f *FaultControl) Set(ff faults.Faults) error {
	if err := ff.Validate(); err != nil {
		return err
	}
	if err := f.chain.SetFaults(ff.Chain); err != nil {
		return err
	}
	f.state.Set(ff.Market)
	return nil
}

// InjectMarket appends faults to the script of one market endpoint (endpoint "" means the next calls
// of any endpoint). Only the market faults of faults.Market are accepted.
func (f *FaultControl) InjectMarket(endpoint string, kinds ...inject.Fault) error {
	if err := faults.ValidateMethodFaults(inject.MethodFaults{Script: kinds}); err != nil {
		return fmt.Errorf("sim: inject market faults: %w", err)
	}
	if _, ok := f.api.routeByEndpoint(endpoint); endpoint != "" && !ok {
		return fmt.Errorf("sim: inject market faults: unknown endpoint %q", endpoint)
	}
	f.state.Engine.Script(endpoint, kinds...)
	return nil
}

// InjectHostile makes the next transaction-building calls hostile, one mode per call, in order.
func (f *FaultControl) InjectHostile(modes ...faults.Hostile) error {
	if err := (faults.Market{Hostile: modes}).Validate(); err != nil {
		return err
	}
	f.state.InjectHostile(modes)
	return nil
}
