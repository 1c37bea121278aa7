package chainsim

import (
	"cmp"
	"net/http"
	"sync/atomic"

	"github.com/keeper-project/keeper/keeper/sim/inject"
)

// faultState holds the chain's fault injection: one engine per service and
// the length of a stall. It is safe for concurrent use.
type faultState struct {
	rpc, jito *inject.FaultEngine
	stall     atomic.Uint64                // slots of a FaultStall stall
	ps        atomic.Pointer[PubsubFaults] // the websocket endpoint's faults
}

// newFaultState returns the state of a validated configuration.
func newFaultState(seed uint64, cfg Faults) *faultState {
	s := &faultState{rpc: inject.NewFaultEngine(string(ServiceRPC), seed), jito: inject.NewFaultEngine(string(ServiceJito), seed)}
	s.set(cfg)
	return s
}

// set replaces the configuration, restarting scripts and random streams.
func (s *faultState) set(cfg Faults) {
	status := cmp.Or(cfg.ServerErrorStatus, http.StatusServiceUnavailable)
	s.rpc.Reset(cfg.RPC, status, cfg.RetryAfter)
	s.jito.Reset(cfg.Jito, status, cfg.RetryAfter)
	s.stall.Store(cmp.Or(cfg.StallSlots, 25))
	ps := cfg.Pubsub
	s.ps.Store(&ps)
}

// pubsub returns the faults of the websocket endpoint.
func (s *faultState) pubsub() PubsubFaults { return *s.ps.Load() }

// engine returns the engine of svc.
func (s *faultState) engine(svc Service) *inject.FaultEngine {
	if svc == ServiceJito {
		return s.jito
	}
	return s.rpc
}

// stallSlots returns the length of a FaultStall stall.
func (s *faultState) stallSlots() uint64 { return s.stall.Load() }
