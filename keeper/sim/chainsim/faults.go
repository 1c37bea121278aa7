package chainsim

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/keeper-project/keeper/keeper/sim/inject"
)

// Service names one of the simulator's two HTTP services.
type Service string

// The simulator's services.
const (
	// ServiceRPC is the Solana JSON-RPC service.
	ServiceRPC Service = "rpc"
	// ServiceJito is the Jito block engine.
	ServiceJito Service = "jito"
)

// Faults configure fault injection for both services. Draws come from one
// seeded stream per service and method, so the same seed and the same
// sequence of calls of each method give the same faults.
type Faults struct {
	// RPC applies to the JSON-RPC service.
	RPC inject.ServiceFaults
	// Jito applies to the block engine.
	Jito inject.ServiceFaults
	// ServerErrorStatus is the status of FaultServerError; zero means 503.
	ServerErrorStatus int
	// RetryAfter is the Retry-After of FaultRateLimit, sent in whole
	// seconds (at least 1); zero means one second.
	RetryAfter time.Duration
	// StallSlots is the length of a FaultStall stall; zero means 25 slots.
	StallSlots uint64
	// Pubsub applies to the RPC service's websocket endpoint.
	Pubsub PubsubFaults
}

// PubsubFaults are the faults of the pubsub (websocket) endpoint of the RPC
// service, for testing a client's fallback to polling.
type PubsubFaults struct {
	// RefuseUpgrade answers every websocket upgrade with 503, as an RPC
	// provider without websocket support does.
	RefuseUpgrade bool
	// DropAfter closes each connection once it has been sent this many
	// notifications; zero never does. The client sees a read error and its
	// subscriptions are gone, as after a provider's disconnect.
	DropAfter int
}

// Validate reports the first invalid setting, naming service and method.
func (f Faults) Validate() error {
	if f.ServerErrorStatus != 0 && (f.ServerErrorStatus < 500 || f.ServerErrorStatus > 599) {
		return fmt.Errorf("faults: server error status %d is not a 5xx status", f.ServerErrorStatus)
	}
	if f.RetryAfter < 0 {
		return errors.New("faults: negative retry-after")
	}
	if f.Pubsub.DropAfter < 0 {
		return errors.New("faults: pubsub: negative drop-after")
	}
	return errors.Join(validateService(f.RPC, ServiceRPC, rpcMethodNames), validateService(f.Jito, ServiceJito, jitoMethodNames))
}

// validateService checks one service's faults against its method names.
func validateService(s inject.ServiceFaults, svc Service, known []string) error {
	if err := validateMethod(s.All); err != nil {
		return fmt.Errorf("faults: %s, all methods: %w", svc, err)
	}
	for name, m := range s.Methods {
		if !slices.Contains(known, name) {
			return fmt.Errorf("faults: %s: unknown method %q", svc, name)
		}
		if err := validateMethod(m); err != nil {
			return fmt.Errorf("faults: %s, method %s: %w", svc, name, err)
		}
	}
	return nil
}

// validateMethod checks one method's faults: the market's own faults are
// refused, the chain does not inject them.
func validateMethod(m inject.MethodFaults) error {
	if m.Latency < 0 || m.Jitter < 0 {
		return errors.New("negative latency or jitter")
	}
	if err := m.Rates.Validate(); err != nil {
		return err
	}
	if m.Rates.Null != 0 || m.Rates.WrongShape != 0 || m.Rates.Oversize != 0 || m.Rates.Conflict != 0 {
		return errors.New("null, wrong-shape, oversize and conflict are market faults, not chain faults")
	}
	for i, f := range m.Script {
		if f < 0 || f >= inject.FaultCount {
			return fmt.Errorf("script entry %d: unknown fault %d", i, int(f))
		}
		if f == inject.FaultNull || f == inject.FaultWrongShape || f == inject.FaultOversize || f == inject.FaultConflict {
			return fmt.Errorf("script entry %d: %s is a market fault, not a chain fault", i, f)
		}
	}
	return nil
}

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
