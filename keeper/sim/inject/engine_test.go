package inject

import (
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// drawn is one decision of a FaultEngine.
type drawn struct {
	fault Fault
	delay time.Duration
}

// drawN makes n calls of key and returns their decisions.
func drawN(e *FaultEngine, key string, n int) []drawn {
	out := make([]drawn, n)
	for i := range out {
		out[i].fault, out[i].delay = e.Draw(key)
	}
	return out
}

func TestFaultEngineStreamDerivation(t *testing.T) {
	const seed = 42
	mf := MethodFaults{Latency: 5 * time.Millisecond, Jitter: 10 * time.Millisecond,
		Rates: Rates{ServerError: 0.3, RateLimit: 0.2}}
	e := NewFaultEngine("svc", seed)
	e.Reset(ServiceFaults{All: mf}, 503, 0)
	got := drawN(e, "key", 200)

	// The contract: a PCG seeded with the seed and the FNV-1a hash of
	// "service/key"; each call draws its jitter, then its fault.
	h := fnv.New64a()
	h.Write([]byte("svc/key"))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	faults := map[Fault]int{}
	for i, g := range got {
		want := drawn{delay: mf.Latency + time.Duration(rng.Int64N(int64(mf.Jitter)))}
		switch x := rng.Float64(); {
		case x < 0.3:
			want.fault = FaultServerError
		case x < 0.5:
			want.fault = FaultRateLimit
		}
		if g != want {
			t.Fatalf("call %d: got %+v, want %+v", i, g, want)
		}
		faults[g.fault]++
	}
	if faults[FaultNone] == 0 || faults[FaultServerError] == 0 || faults[FaultRateLimit] == 0 {
		t.Errorf("200 draws gave %v, want every kind", faults)
	}
}

func TestFaultEngineKeysAreIndependent(t *testing.T) {
	cfg := ServiceFaults{All: MethodFaults{Jitter: time.Second, Rates: Rates{Timeout: 0.5}}}
	alone := NewFaultEngine("svc", 7)
	alone.Reset(cfg, 503, 0)
	want := drawN(alone, "a", 50)

	mixed := NewFaultEngine("svc", 7)
	mixed.Reset(cfg, 503, 0)
	var got []drawn
	for i := range 50 {
		drawN(mixed, "b", i%3)
		got = append(got, drawN(mixed, "a", 1)...)
	}
	if !slices.Equal(got, want) {
		t.Errorf("calls of b changed the draws of a:\n%v\n%v", got, want)
	}
	if b := drawN(alone, "b", 50); slices.Equal(b, want) {
		t.Error("keys a and b share a stream")
	}
	other := NewFaultEngine("svc", 8)
	other.Reset(cfg, 503, 0)
	if slices.Equal(drawN(other, "a", 50), want) {
		t.Error("seeds 7 and 8 gave the same draws")
	}
	otherSvc := NewFaultEngine("other", 7)
	otherSvc.Reset(cfg, 503, 0)
	if slices.Equal(drawN(otherSvc, "a", 50), want) {
		t.Error("services svc and other gave the same draws")
	}
}

func TestFaultEngineScripts(t *testing.T) {
	tests := []struct {
		name   string
		cfg    ServiceFaults
		inject map[string][]Fault
		calls  []string
		want   []Fault
	}{
		{
			name:  "configured all script serves any key in order",
			cfg:   ServiceFaults{All: MethodFaults{Script: []Fault{FaultTimeout, FaultNone, FaultTruncate}}},
			calls: []string{"a", "b", "a", "a"},
			want:  []Fault{FaultTimeout, FaultNone, FaultTruncate, FaultNone},
		},
		{
			name: "own script before the any-key script",
			cfg: ServiceFaults{All: MethodFaults{Script: []Fault{FaultRateLimit}},
				Methods: map[string]MethodFaults{"a": {Script: []Fault{FaultServerError}}}},
			calls: []string{"a", "a", "a"},
			want:  []Fault{FaultServerError, FaultRateLimit, FaultNone},
		},
		{
			name:   "injected faults append to configured ones",
			cfg:    ServiceFaults{Methods: map[string]MethodFaults{"a": {Script: []Fault{FaultStall}}}},
			inject: map[string][]Fault{"a": {FaultNeverLand}, "": {FaultTimeout}},
			calls:  []string{"b", "a", "a", "a"},
			want:   []Fault{FaultTimeout, FaultStall, FaultNeverLand, FaultNone},
		},
		{
			name:  "script overrides certain rates",
			cfg:   ServiceFaults{All: MethodFaults{Rates: Rates{ServerError: 1}, Script: []Fault{FaultNone}}},
			calls: []string{"a", "a"},
			want:  []Fault{FaultNone, FaultServerError},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := NewFaultEngine("svc", 1)
			e.Reset(tt.cfg, 503, 0)
			for key, fs := range tt.inject {
				e.Script(key, fs...)
			}
			var got []Fault
			for _, key := range tt.calls {
				f, _ := e.Draw(key)
				got = append(got, f)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("faults %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFaultEngineScriptedCallsKeepTheJitterStream(t *testing.T) {
	cfg := ServiceFaults{All: MethodFaults{Jitter: time.Second}}
	plain := NewFaultEngine("svc", 3)
	plain.Reset(cfg, 503, 0)
	want := drawN(plain, "a", 3)

	scripted := NewFaultEngine("svc", 3)
	scripted.Reset(cfg, 503, 0)
	scripted.Script("a", FaultTruncate)
	got := drawN(scripted, "a", 3)
	if got[0].fault != FaultTruncate || got[0].delay != want[0].delay || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("scripted run %v, want the delays of %v", got, want)
	}
}

func TestFaultEngineResetRestarts(t *testing.T) {
	cfg := ServiceFaults{All: MethodFaults{Jitter: time.Second, Rates: Rates{Truncate: 0.5}}}
	e := NewFaultEngine("svc", 9)
	e.Reset(cfg, 503, 0)
	first := drawN(e, "a", 20)
	e.Script("a", FaultTimeout)
	e.Reset(cfg, 503, 0)
	if again := drawN(e, "a", 20); !slices.Equal(again, first) {
		t.Errorf("after Reset: %v, want %v", again, first)
	}
}

func TestFaultEngineStatusAndRetryAfter(t *testing.T) {
	if st := NewFaultEngine("svc", 0).ServerErrorStatus(); st != 503 {
		t.Errorf("default status %d, want 503", st)
	}
	tests := []struct {
		retryAfter time.Duration
		want       int64
	}{
		{0, 1},
		{time.Millisecond, 1},
		{time.Second, 1},
		{time.Second + time.Nanosecond, 2},
		{2500 * time.Millisecond, 3},
		{3 * time.Second, 3},
	}
	for _, tt := range tests {
		e := NewFaultEngine("svc", 0)
		e.Reset(ServiceFaults{}, 502, tt.retryAfter)
		if got := e.RetryAfterSeconds(); got != tt.want {
			t.Errorf("RetryAfter %v: %d seconds, want %d", tt.retryAfter, got, tt.want)
		}
		if st := e.ServerErrorStatus(); st != 502 {
			t.Errorf("status %d, want 502", st)
		}
	}
}

func TestFaultEngineConcurrentScriptConsumedOnce(t *testing.T) {
	e := NewFaultEngine("svc", 0)
	e.Script("", slices.Repeat([]Fault{FaultServerError}, 100)...)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		counts = map[Fault]int{}
	)
	for g := range 8 {
		wg.Go(func() {
			for range 25 {
				f, _ := e.Draw(string(rune('a' + g)))
				mu.Lock()
				counts[f]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if counts[FaultServerError] != 100 || counts[FaultNone] != 100 {
		t.Errorf("counts %v, want 100 server errors and 100 normal calls", counts)
	}
}

func TestRatesValidate(t *testing.T) {
	tests := []struct {
		name  string
		rates Rates
		want  string
	}{
		{"zero", Rates{}, ""},
		{"sum exactly 1", Rates{ServerError: 0.5, Stall: 0.5}, ""},
		{"negative", Rates{Timeout: -0.1}, "rate -0.1 outside [0, 1]"},
		{"above 1", Rates{NeverLand: 1.5}, "rate 1.5 outside [0, 1]"},
		{"sum above 1", Rates{RateLimit: 0.6, Truncate: 0.6}, "rates add up to 1.2, more than 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.rates.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Validate() = %q, want %q", got, tt.want)
			}
		})
	}
}
