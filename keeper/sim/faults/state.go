package faults

import (
	"cmp"
	"net/http"
	"sync"

	"github.com/keeper-project/keeper/keeper/sim/inject"
)

// marketService names the market's random fault streams (see inject.FaultEngine).
const marketService = "market"

// State holds the market's fault injection: the fault engine of its endpoints, the
// queue of hostile modes and the snapshot skew of E3 pages. It is safe for concurrent use.
type State struct {
	Engine *inject.FaultEngine

	mu      sync.Mutex
	hostile []Hostile    // guarded by mu
	always  Hostile      // guarded by mu; applies once hostile is used up
	skew    SnapshotSkew // guarded by mu
	skewed  bool         // guarded by mu; a SnapshotSkewOnce answer was given
}

// newMarketFaultState returns the state of a validated configuration.
func NewState(seed uint64, cfg Market) *State {
	s := &State{Engine: inject.NewFaultEngine(marketService, seed)}
	s.Set(cfg)
	return s
}

// Set replaces the configuration, restarting scripts, random streams and hostile modes.
func (s *State) Set(cfg Market) {
	s.Engine.Reset(inject.ServiceFaults{All: cfg.All, Methods: cfg.Endpoints},
		cmp.Or(cfg.ServerErrorStatus, http.StatusInternalServerError), cfg.RetryAfter)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hostile = append([]Hostile(nil), cfg.Hostile...)
	s.always = cfg.HostileAlways
	s.skew, s.skewed = cfg.SnapshotSkew, false
}

// SnapshotSkew returns how many seconds to add to the snapshotTs of an E3 answer for page.
func (s *State) SnapshotSkew(page int) float64 {
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

// InjectHostile appends hostile modes for the next transaction-building calls.
func (s *State) InjectHostile(h []Hostile) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hostile = append(s.hostile, h...)
}

// NextHostile returns the hostile mode of the next transaction-building call.
func (s *State) NextHostile() Hostile {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.hostile) > 0 {
		h := s.hostile[0]
		s.hostile = s.hostile[1:]
		return h
	}
	return s.always
}
