package inject

import (
	"fmt"
	"time"
)

// Fault is one kind of injected failure.
type Fault int

// The faults, in the order a probability draw tests them.
const (
	// FaultNone serves the call normally.
	FaultNone Fault = iota
	// FaultServerError answers with the service's server error status and a text body,
	// without processing the call.
	FaultServerError
	// FaultRateLimit answers 429 with a Retry-After header, without
	// processing the call.
	FaultRateLimit
	// FaultTimeout never answers: the handler waits until the client gives
	// up (its request context ends) or the server stops.
	FaultTimeout
	// FaultTruncate processes the call (state changes stick) and sends only
	// the first half of the response body.
	FaultTruncate
	// FaultNeverLand makes sendTransaction return the signature and
	// sendBundle the bundle id without landing anything. Other methods are
	// served normally.
	FaultNeverLand
	// FaultStall starts a stall of the chain's stall length from the next
	// slot, then serves the call normally.
	FaultStall
	// FaultNull answers 200 with the JSON body null, without processing
	// the call: an API that answers but says nothing. Only the market
	// simulator (package sim) injects it.
	FaultNull
	// FaultWrongShape answers 200 with a JSON string where an object or
	// array is due, without processing the call. Only the market simulator
	// injects it.
	FaultWrongShape
	// FaultOversize answers 200 with a well-formed JSON body of
	// OversizeBytes, streamed, without processing the call: a broken or
	// hostile server flooding the client. Only the market simulator injects
	// it.
	FaultOversize
	// FaultConflict answers 409 with the error envelope, without processing
	// the call: a market that takes the Idempotent-Key for one still being
	// processed. Only the market simulator injects it.
	FaultConflict
	FaultCount
)

// String returns the fault's name.
func (f Fault) String() string {
	names := [...]string{"none", "server-error", "rate-limit", "timeout", "truncate", "never-land", "stall", "null", "wrong-shape", "oversize", "conflict"}
	if f < 0 || f >= FaultCount {
		return fmt.Sprintf("fault(%d)", int(f))
	}
	return names[f]
}

// Rates are per-call probabilities of each fault. Each must be in [0, 1]
// and together they must not exceed 1.
type Rates struct {
	ServerError float64 // FaultServerError
	RateLimit   float64 // FaultRateLimit
	Timeout     float64 // FaultTimeout
	Truncate    float64 // FaultTruncate
	NeverLand   float64 // FaultNeverLand
	Stall       float64 // FaultStall
	Null        float64 // FaultNull (market only)
	WrongShape  float64 // FaultWrongShape (market only)
	Oversize    float64 // FaultOversize (market only)
	Conflict    float64 // FaultConflict (market only)
}

// list returns the rates in Fault order, starting at FaultServerError.
func (r Rates) list() []float64 {
	return []float64{r.ServerError, r.RateLimit, r.Timeout, r.Truncate, r.NeverLand, r.Stall, r.Null, r.WrongShape, r.Oversize, r.Conflict}
}

// Validate reports the first rate outside [0, 1], or rates that add up to
// more than 1.
func (r Rates) Validate() error {
	sum := 0.0
	for _, v := range r.list() {
		if v < 0 || v > 1 {
			return fmt.Errorf("rate %v outside [0, 1]", v)
		}
		sum += v
	}
	if sum > 1+1e-9 {
		return fmt.Errorf("rates add up to %v, more than 1", sum)
	}
	return nil
}

// MethodFaults are the faults of one method (or of every method).
type MethodFaults struct {
	// Latency is added to every call, waited on the chain's clock.
	Latency time.Duration
	// Jitter adds a seeded random extra latency in [0, Jitter).
	Jitter time.Duration
	// Rates are the probabilities of each fault per call.
	Rates Rates
	// Script lists the faults of the next calls, one per call, before
	// Rates apply; FaultNone lets a call through.
	Script []Fault
	// LagSlots makes the node answer as one that many slots behind the
	// cluster, as a lagging node behind a load balancer does: its context
	// slot is that old; getSignatureStatuses does not know the
	// transactions that landed in the last LagSlots slots; account reads
	// (getAccountInfo, getMultipleAccounts, getBalance) see the accounts as
	// they were at the end of that slot; blockhash and slot reads answer
	// from that block; and minContextSlot is held against that slot (-32016).
	// simulateTransaction and sends do not lag.
	LagSlots uint64
}

// ServiceFaults are the faults of one service.
type ServiceFaults struct {
	// All applies to every method that has no entry in Methods. Its Script
	// is consumed by calls of any method, in arrival order.
	All MethodFaults
	// Methods, keyed by JSON-RPC method name, replace All for that method;
	// a method's own Script is consumed before All's.
	Methods map[string]MethodFaults
}

// OversizeBytes is the length of a FaultOversize body: 300 MB.
const OversizeBytes = 300_000_000

// ParseFault returns the fault of a name as String writes it.
func ParseFault(name string) (Fault, error) {
	for f := FaultNone; f < FaultCount; f++ {
		if f.String() == name {
			return f, nil
		}
	}
	return FaultNone, fmt.Errorf("unknown fault %q", name)
}

// forMethod returns the faults that apply to method.
func (s ServiceFaults) forMethod(method string) MethodFaults {
	if m, ok := s.Methods[method]; ok {
		return m
	}
	return s.All
}
