package sim

import (
	"log/slog"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// Options configure a Sim. The zero value is usable: a real-time clock, seed 0, the default scenario,
// a wallet derived from the name "operator", no faults and no logging.
type Options struct {
	// Clock drives the chain's slots and the scenario's events. Tests pass a *chainsim.ManualClock and
	// step it with Events.Advance; `keeper sim` uses chainsim.RealClock. Nil means chainsim.RealClock.
	Clock chainsim.Clock
	// Seed makes blockhashes and fault draws differ between simulators.
	Seed uint64
	// Scenario is the initial state and scripted events; nil means DefaultScenario.
	Scenario *scenario.Scenario
	// Wallet is the operator's wallet: "$wallet" in the scenario. The zero key means DefaultWallet.
	Wallet solana.PublicKey
	// Faults are injected from the start (see FaultControl.Set).
	Faults faults.Faults
	// MinTip is the smallest Jito tip a bundle must pay; zero means chainsim.DefaultMinTip.
	MinTip uint64
	// Logger receives a debug line per scenario event and per request; nil discards.
	Logger *slog.Logger
	// JitoRateLimit is the block engine's limit on the requests per second of one client IP address
	// (see chainsim.Options.JitoRateLimit); zero means DefaultJitoRateLimit, and math.Inf(1) lifts it.
	JitoRateLimit float64
	// OnUnknownRoute, when set, is called for every market request to an unknown route or with a method
	// other than POST (after the 404 or 405 answer is chosen). Tests use it to fail loudly.
	OnUnknownRoute func(method, path string)
}

// DefaultJitoRateLimit is the block engine's limit when Options.JitoRateLimit is zero: Jito's
// documented default, one request per second per IP per region (jito-docs lowlatencytxnsend.md,
// "Rate Limits").
const DefaultJitoRateLimit = 1

// DefaultWallet is the operator's wallet when Options.Wallet is zero.
func DefaultWallet() solana.PublicKey { return ids.DerivedKey("wallet", "operator") }
