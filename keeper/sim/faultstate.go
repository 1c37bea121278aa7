package sim

import (
	"cmp"
	"net/http"
	"sync"

	"github.com/keeper-project/keeper/keeper/sim/inject"
)

// marketService names the market's random fault streams (see chainsim.FaultEngine).
const marketService = "market"

// marketFaultState holds the market's fault injection: the fault engine of its endpoints, the
// queue of hostile modes and the snapshot skew of E3 pages. It is safe for concurrent use.
type marketFaultState struct {
	engine *inject.FaultEngine

	mu      sync.Mutex
	hostile []Hostile    // guarded by mu
	always  Hostile      // guarded by mu; applies once hostile is used up
	skew    SnapshotSkew // guarded by mu
	skewed  bool         // guarded by mu; a SnapshotSkewOnce answer was given
}

// newMarketFaultState returns the state of a validated configuration.
func newMarketFaultState(seed uint64, cfg MarketFaults) *marketFaultState {
	s := &marketFaultState{engine: inject.NewFaultEngine(marketService, seed)}
	s.set(cfg)
	return s
}

// set replaces the configuration, restarting scripts, random streams and hostile modes.
func (s *marketFaultState) set(cfg MarketFaults) {
	s.engine.Reset(inject.ServiceFaults{All: cfg.All, Methods: cfg.Endpoints},
		cmp.Or(cfg.ServerErrorStatus, http.StatusInternalServerError), cfg.RetryAfter)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hostile = append([]Hostile(nil), cfg.Hostile...)
	s.always = cfg.HostileAlways
	s.skew, s.skewed = cfg.SnapshotSkew, false
}

// snapshotSkew returns how many seconds to add to the snapshotTs of an E3 answer for page.
func (s *marketFaultState) snapshotSkew(page int) float64 {
	if page == 0 {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.skew == SnapshotSkewAlways, s.skew == SnapshotSkewOnce && !s.skewed:
		s.skewed = true
		return snapshotSkewStep
	}
	return 0
}

// injectHostile appends hostile modes for the next transaction-building calls.
func (s *marketFaultState) injectHostile(h []Hostile) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hostile = append(s.hostile, h...)
}

// nextHostile returns the hostile mode of the next transaction-building call.
func (s *marketFaultState) nextHostile() Hostile {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.hostile) > 0 {
		h := s.hostile[0]
		s.hostile = s.hostile[1:]
		return h
	}
	return s.always
}
