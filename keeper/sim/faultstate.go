package sim

import (
	"hash/fnv"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
)

// faultDecision is what fault injection does to one market call.
type faultDecision struct {
	fault chainsim.Fault
	delay time.Duration
}

// marketFaultState holds the market's fault configuration and its deterministic draws. It is safe
// for concurrent use.
type marketFaultState struct {
	seed uint64

	mu      sync.Mutex
	cfg     MarketFaults                // guarded by mu
	scripts map[string][]chainsim.Fault // guarded by mu; "" holds the any-endpoint script
	hostile []Hostile                   // guarded by mu
	rngs    map[string]*rand.Rand       // guarded by mu; one stream per endpoint
}

// newMarketFaultState returns the state of a validated configuration.
func newMarketFaultState(seed uint64, cfg MarketFaults) *marketFaultState {
	s := &marketFaultState{seed: seed}
	s.set(cfg)
	return s
}

// set replaces the configuration, restarting scripts and random streams.
func (s *marketFaultState) set(cfg MarketFaults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg = cfg
	s.rngs = map[string]*rand.Rand{}
	s.scripts = map[string][]chainsim.Fault{"": append([]chainsim.Fault(nil), cfg.All.Script...)}
	for name, m := range cfg.Endpoints {
		s.scripts[name] = append([]chainsim.Fault(nil), m.Script...)
	}
	s.hostile = append([]Hostile(nil), cfg.Hostile...)
}

// inject appends faults to the script of an endpoint ("" for any endpoint).
func (s *marketFaultState) inject(endpoint string, faults []chainsim.Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[endpoint] = append(s.scripts[endpoint], faults...)
}

// injectHostile appends hostile modes for the next transaction-building calls.
func (s *marketFaultState) injectHostile(h []Hostile) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hostile = append(s.hostile, h...)
}

// draw decides the fate of the next call of an endpoint.
func (s *marketFaultState) draw(endpoint string) faultDecision {
	s.mu.Lock()
	defer s.mu.Unlock()
	mf := s.cfg.forEndpoint(endpoint)
	rng := s.rng(endpoint)
	d := faultDecision{delay: mf.Latency}
	if mf.Jitter > 0 {
		d.delay += time.Duration(rng.Int64N(int64(mf.Jitter)))
	}
	for _, key := range []string{endpoint, ""} {
		if q := s.scripts[key]; len(q) > 0 {
			s.scripts[key] = q[1:]
			d.fault = q[0]
			return d
		}
	}
	d.fault = pickMarketFault(mf.Rates, rng)
	return d
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
	return s.cfg.HostileAlways
}

// pickMarketFault draws one fault from rates; no draw is made when all are zero.
func pickMarketFault(r chainsim.Rates, rng *rand.Rand) chainsim.Fault {
	list := []float64{r.ServerError, r.RateLimit, r.Timeout, r.Truncate}
	total := 0.0
	for _, v := range list {
		total += v
	}
	if total == 0 {
		return chainsim.FaultNone
	}
	x, cum := rng.Float64(), 0.0
	for i, v := range list {
		cum += v
		if x < cum {
			return chainsim.FaultServerError + chainsim.Fault(i)
		}
	}
	return chainsim.FaultNone
}

// rng returns the random stream of an endpoint, created on first use.
func (s *marketFaultState) rng(endpoint string) *rand.Rand {
	if r, ok := s.rngs[endpoint]; ok {
		return r
	}
	h := fnv.New64a()
	h.Write([]byte("market/" + endpoint))
	r := rand.New(rand.NewPCG(s.seed, h.Sum64()))
	s.rngs[endpoint] = r
	return r
}

// serverErrorStatus returns the status of FaultServerError.
func (s *marketFaultState) serverErrorStatus() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.ServerErrorStatus == 0 {
		return 500
	}
	return s.cfg.ServerErrorStatus
}

// retryAfterSeconds returns the Retry-After of FaultRateLimit in whole seconds.
func (s *marketFaultState) retryAfterSeconds() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(int64((s.cfg.RetryAfter+time.Second-1)/time.Second), 1)
}
