package chainsim

import (
	"hash/fnv"
	"math/rand/v2"
	"sync"
	"time"
)

// decision is what fault injection does to one call.
type decision struct {
	fault Fault
	delay time.Duration
}

// faultState holds the fault configuration and its deterministic draws. It
// is safe for concurrent use.
type faultState struct {
	seed uint64

	mu      sync.Mutex
	cfg     Faults                         // guarded by mu
	scripts map[Service]map[string][]Fault // guarded by mu; "" holds the any-method script
	rngs    map[string]*rand.Rand          // guarded by mu; one stream per service and method
}

// newFaultState returns the state of a validated configuration.
func newFaultState(seed uint64, cfg Faults) *faultState {
	s := &faultState{seed: seed}
	s.set(cfg)
	return s
}

// set replaces the configuration, restarting scripts and random streams.
func (s *faultState) set(cfg Faults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg = cfg
	s.rngs = map[string]*rand.Rand{}
	s.scripts = map[Service]map[string][]Fault{ServiceRPC: {}, ServiceJito: {}}
	for svc, sf := range map[Service]ServiceFaults{ServiceRPC: cfg.RPC, ServiceJito: cfg.Jito} {
		s.scripts[svc][""] = append([]Fault(nil), sf.All.Script...)
		for name, m := range sf.Methods {
			s.scripts[svc][name] = append([]Fault(nil), m.Script...)
		}
	}
}

// inject appends faults to the script of method ("" for any method).
func (s *faultState) inject(svc Service, method string, faults []Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts[svc][method] = append(s.scripts[svc][method], faults...)
}

// service returns the configuration of svc.
func (s *faultState) service(svc Service) ServiceFaults {
	if svc == ServiceJito {
		return s.cfg.Jito
	}
	return s.cfg.RPC
}

// draw decides the fate of the next call of method on svc.
func (s *faultState) draw(svc Service, method string) decision {
	s.mu.Lock()
	defer s.mu.Unlock()
	mf := s.service(svc).forMethod(method)
	rng := s.rng(svc, method)
	d := decision{delay: mf.Latency}
	if mf.Jitter > 0 {
		d.delay += time.Duration(rng.Int64N(int64(mf.Jitter)))
	}
	if f, ok := s.pop(svc, method); ok {
		d.fault = f
		return d
	}
	if f, ok := s.pop(svc, ""); ok {
		d.fault = f
		return d
	}
	d.fault = pickFault(mf.Rates, rng)
	return d
}

// pickFault draws one fault from rates; no draw is made when all are zero.
func pickFault(rates Rates, rng *rand.Rand) Fault {
	list := rates.list()
	total := 0.0
	for _, r := range list {
		total += r
	}
	if total == 0 {
		return FaultNone
	}
	x := rng.Float64()
	cum := 0.0
	for i, r := range list {
		cum += r
		if x < cum {
			return FaultServerError + Fault(i)
		}
	}
	return FaultNone
}

// pop removes and returns the next scripted fault of key.
func (s *faultState) pop(svc Service, key string) (Fault, bool) {
	q := s.scripts[svc][key]
	if len(q) == 0 {
		return FaultNone, false
	}
	s.scripts[svc][key] = q[1:]
	return q[0], true
}

// rng returns the random stream of svc and method, created on first use.
func (s *faultState) rng(svc Service, method string) *rand.Rand {
	key := string(svc) + "/" + method
	if r, ok := s.rngs[key]; ok {
		return r
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	r := rand.New(rand.NewPCG(s.seed, h.Sum64()))
	s.rngs[key] = r
	return r
}

// serverErrorStatus returns the status of FaultServerError.
func (s *faultState) serverErrorStatus() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.ServerErrorStatus == 0 {
		return 503
	}
	return s.cfg.ServerErrorStatus
}

// retryAfterSeconds returns the Retry-After of FaultRateLimit in seconds.
func (s *faultState) retryAfterSeconds() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	secs := int64((s.cfg.RetryAfter + time.Second - 1) / time.Second)
	return max(secs, 1)
}

// stallSlots returns the length of a FaultStall stall.
func (s *faultState) stallSlots() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.StallSlots == 0 {
		return 25
	}
	return s.cfg.StallSlots
}
