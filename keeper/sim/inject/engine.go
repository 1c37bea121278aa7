package inject

import (
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// FaultEngine decides, call by call, the faults of one simulated HTTP
// service whose calls are told apart by a key (a JSON-RPC method, a market
// endpoint). The chain's RPC and Jito servers use one each, and so does the
// market simulator in package sim.
//
// A call of key k waits the latency of k's MethodFaults plus a jitter drawn
// in [0, Jitter), then takes the next fault of k's script, else the next of
// the any-key script (key ""), else a draw from k's rates. Every key has its
// own random stream, a PCG seeded with the engine's seed and the FNV-1a hash
// of "service/k", created on the key's first call. So the same seed and the
// same sequence of calls of each key give the same latencies and faults,
// whatever the calls of other keys. A FaultEngine is safe for concurrent use.
type FaultEngine struct {
	service string
	seed    uint64

	mu         sync.Mutex
	cfg        ServiceFaults         // guarded by mu
	status     int                   // guarded by mu
	retryAfter time.Duration         // guarded by mu
	scripts    map[string][]Fault    // guarded by mu; "" holds the any-key script
	rngs       map[string]*rand.Rand // guarded by mu; one stream per key
}

// NewFaultEngine returns the engine of service (which names its random
// streams) with the given seed. It injects nothing and answers
// FaultServerError with 503 until Reset configures it.
func NewFaultEngine(service string, seed uint64) *FaultEngine {
	e := &FaultEngine{service: service, seed: seed}
	e.Reset(ServiceFaults{}, http.StatusServiceUnavailable, 0)
	return e
}

// Reset replaces the configuration and restarts the scripts and random
// streams. cfg.All applies to keys without an entry in cfg.Methods, and its
// Script becomes the any-key script. status (the status of
// FaultServerError) and retryAfter (the Retry-After of FaultRateLimit) are
// used as given. The caller validates cfg.
func (e *FaultEngine) Reset(cfg ServiceFaults, status int, retryAfter time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cfg, e.status, e.retryAfter = cfg, status, retryAfter
	e.rngs = map[string]*rand.Rand{}
	e.scripts = map[string][]Fault{"": append([]Fault(nil), cfg.All.Script...)}
	for key, m := range cfg.Methods {
		e.scripts[key] = append([]Fault(nil), m.Script...)
	}
}

// Script appends faults to the script of key ("" for the next calls of any
// key), one per call. The caller validates the faults.
func (e *FaultEngine) Script(key string, faults ...Fault) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.scripts[key] = append(e.scripts[key], faults...)
}

// Draw decides the next call of key: the fault to inject (FaultNone for a
// normal call) and how long to wait before it.
func (e *FaultEngine) Draw(key string) (Fault, time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	mf := e.cfg.forMethod(key)
	rng := e.rng(key)
	delay := mf.Latency
	if mf.Jitter > 0 {
		delay += time.Duration(rng.Int64N(int64(mf.Jitter)))
	}
	for _, k := range [...]string{key, ""} {
		if q := e.scripts[k]; len(q) > 0 {
			e.scripts[k] = q[1:]
			return q[0], delay
		}
	}
	return pickFault(mf.Rates, rng), delay
}

// Lag returns how many slots behind the cluster key's answers are.
func (e *FaultEngine) Lag(key string) uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cfg.forMethod(key).LagSlots
}

// ServerErrorStatus returns the HTTP status of FaultServerError.
func (e *FaultEngine) ServerErrorStatus() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.status
}

// RetryAfterSeconds returns the Retry-After of FaultRateLimit in whole
// seconds, rounded up and at least 1.
func (e *FaultEngine) RetryAfterSeconds() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return max(int64((e.retryAfter+time.Second-1)/time.Second), 1)
}

// rng returns the random stream of key, created on first use. The caller
// holds mu.
func (e *FaultEngine) rng(key string) *rand.Rand {
	if r, ok := e.rngs[key]; ok {
		return r
	}
	h := fnv.New64a()
	h.Write([]byte(e.service + "/" + key))
	r := rand.New(rand.NewPCG(e.seed, h.Sum64()))
	e.rngs[key] = r
	return r
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
