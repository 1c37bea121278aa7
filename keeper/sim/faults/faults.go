// Package faults configures the faults the simulator injects into its three
// services ([Faults]: the chain's RPC and Jito block engine, and the market
// API), reads them from the command line's text ([Parse]), and holds the
// market's own: per-endpoint faults, hostile transaction-building answers
// ([Hostile]) and skewed snapshots of E3 pages ([SnapshotSkew]).
package faults

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/inject"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
)

// Faults configures fault injection for all three services from one place: Chain for the Solana RPC
// and the Jito block engine (see chainsim.Faults), Market for the market API.
type Faults struct {
	Chain  chainsim.Faults
	Market Market
}

// Validate reports the first invalid setting.
func (f Faults) Validate() error {
	return errors.Join(f.Chain.Validate(), f.Market.Validate())
}

// Market configures the market API's faults. Draws come from one stream per endpoint seeded
// from Options.Seed, so the same seed and the same sequence of calls of each endpoint give the same
// faults. The market supports the faults FaultServerError, FaultRateLimit, FaultTimeout,
// FaultTruncate (a truncated write has still been processed and recorded for idempotent replay),
// FaultNull and FaultWrongShape (a 200 answer of null or of a JSON string, the call not processed),
// FaultOversize (a streamed 200 answer of chainsim.OversizeBytes, the call not processed),
// FaultConflict (a 409 envelope, the call not processed),
// plus latency and jitter waited on the sim clock, hostile transaction-building answers and E3 pages
// whose snapshotTs values differ.
type Market struct {
	// All applies to every endpoint that has no entry in Endpoints; its Script is consumed by calls of
	// any endpoint, in arrival order.
	All inject.MethodFaults
	// Endpoints, keyed by endpoint name (apiwire.EndpointLoansInfo, ...), replace All for that endpoint;
	// an endpoint's own Script is consumed before All's.
	Endpoints map[string]inject.MethodFaults
	// ServerErrorStatus is the status of FaultServerError; zero means 500.
	ServerErrorStatus int
	// RetryAfter is the Retry-After of FaultRateLimit, in whole seconds (at least 1).
	RetryAfter time.Duration
	// Hostile lists, in order, what the next transaction-building calls do: each call that builds
	// transactions (not a replay, not a refused request) consumes one entry and returns its
	// transactions with that hostile change.
	Hostile []Hostile
	// HostileAlways applies to every transaction-building call once Hostile is used up; HostileNone
	// (the zero value) leaves them honest.
	HostileAlways Hostile
	// SnapshotSkew makes E3 answers for pages after the first carry a snapshotTs other than their
	// snapshot's (once, or always), so a walk of pages is mixed; SnapshotSkewNone (the zero value)
	// leaves them honest.
	SnapshotSkew SnapshotSkew
}

// endpointNames lists every endpoint the simulated market serves.
var endpointNames = []string{
	apiwire.EndpointUpdateStrategy, apiwire.EndpointBuildLoan, apiwire.EndpointLoansInfo,
	apiwire.EndpointTransferPosition, apiwire.EndpointVaultDeposits, apiwire.EndpointBestQuote,
	apiwire.EndpointHistoricalHolders, apiwire.EndpointClaimFees, apiwire.EndpointWithdrawStrategy,
	apiwire.EndpointWithdrawClaim, apiwire.EndpointVaultsInfo, apiwire.EndpointLoopInfo,
	apiwire.EndpointEarnPosition, apiwire.EndpointWithdrawalQueue,
}

// Validate reports the first invalid market fault setting, naming the endpoint.
func (m Market) Validate() error {
	if m.ServerErrorStatus != 0 && (m.ServerErrorStatus < 500 || m.ServerErrorStatus > 599) {
		return fmt.Errorf("sim: market faults: server error status %d is not a 5xx status", m.ServerErrorStatus)
	}
	if m.RetryAfter < 0 {
		return errors.New("sim: market faults: negative retry-after")
	}
	if err := ValidateMethodFaults(m.All); err != nil {
		return fmt.Errorf("sim: market faults, all endpoints: %w", err)
	}
	for name, mf := range m.Endpoints {
		if !slices.Contains(endpointNames, name) {
			return fmt.Errorf("sim: market faults: unknown endpoint %q", name)
		}
		if err := ValidateMethodFaults(mf); err != nil {
			return fmt.Errorf("sim: market faults, endpoint %s: %w", name, err)
		}
	}
	for i, h := range append(slices.Clone(m.Hostile), m.HostileAlways) {
		if h < HostileNone || h >= hostileCount {
			return fmt.Errorf("sim: market faults: hostile entry %d: unknown hostile mode %d", i, int(h))
		}
	}
	if m.SnapshotSkew < SnapshotSkewNone || m.SnapshotSkew >= snapshotSkewCount {
		return fmt.Errorf("sim: market faults: unknown snapshot skew %d", int(m.SnapshotSkew))
	}
	return nil
}

// marketFaultKinds are the faults the market API can inject.
var marketFaultKinds = []inject.Fault{inject.FaultNone, inject.FaultServerError, inject.FaultRateLimit,
	inject.FaultTimeout, inject.FaultTruncate, inject.FaultNull, inject.FaultWrongShape, inject.FaultOversize,
	inject.FaultConflict}

// ValidateMethodFaults checks one endpoint's faults.
func ValidateMethodFaults(m inject.MethodFaults) error {
	if m.Latency < 0 || m.Jitter < 0 {
		return errors.New("negative latency or jitter")
	}
	r := m.Rates
	if r.NeverLand != 0 || r.Stall != 0 {
		return errors.New("never-land and stall are chain faults, not market faults")
	}
	if err := r.Validate(); err != nil {
		return err
	}
	for i, f := range m.Script {
		if !slices.Contains(marketFaultKinds, f) {
			return fmt.Errorf("script entry %d: fault %s is not a market fault", i, f)
		}
	}
	return nil
}
