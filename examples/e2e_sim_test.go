package examples_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/sim"
)

// slotSeconds is one chain slot: the clock step of pace.
const slotSeconds = 0.4

// maxPaceSteps bounds how many slots pace moves the clock during one keeper command: far more than
// one use case needs (a handful), far fewer than would let a hung process run on forever.
const maxPaceSteps = 300

// simProc is a running `keeper sim --manual-clock` and what it printed.
type simProc struct {
	urls    sim.URLs
	control string // base URL of the control routes, ending in /_sim/
	wallet  string
	keypair string            // the operator's keypair file it wrote
	named   map[string]string // "vault alpha-vault" → address, from its listing
	client  *http.Client
	proc    *daemon // the `keeper sim` process
}

// startSim starts `keeper sim` with a manual clock on free ports and a fresh keypair, and waits
// until it has printed where it listens. t.Cleanup stops it.
func startSim(t testing.TB) *simProc {
	t.Helper()
	return startSimWith(t, "--manual-clock")
}

// startSimWith is startSim with clockFlag (--manual-clock or --control) instead, and extra
// arguments of `keeper sim` (a --scenario).
func startSimWith(t testing.TB, clockFlag string, extra ...string) *simProc {
	t.Helper()
	dir := t.TempDir()
	kp := filepath.Join(dir, "operator.json")
	out := &syncBuffer{}
	args := append([]string{"sim", clockFlag, "--listen", "127.0.0.1:0", "--keypair", kp}, extra...)
	d := startKeeper(t, dir, out, args...)
	select {
	case <-out.lineReady("simulator control "):
	case <-d.exited:
		t.Fatalf("keeper sim exited (%v)\nstdout:\n%s\nstderr:\n%s", d.err, out.String(), d.stderr.String())
	case <-time.After(startTimeout):
		t.Fatalf("keeper sim printed no control line within %s\nstdout:\n%s", startTimeout, out.String())
	}
	s := &simProc{keypair: kp, named: map[string]string{}, client: &http.Client{}, proc: d}
	if err := s.parse(out.String()); err != nil {
		t.Fatalf("keeper sim output: %v\n%s", err, out.String())
	}
	return s
}

// parse reads the addresses `keeper sim` printed.
func (s *simProc) parse(out string) error {
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		switch {
		case len(f) < 3:
		case strings.HasPrefix(line, "simulated market "):
			s.urls.Market = f[2]
		case strings.HasPrefix(line, "simulated RPC "):
			s.urls.RPC = f[2]
		case strings.HasPrefix(line, "simulated Jito "):
			s.urls.Jito = f[2]
		case strings.HasPrefix(line, "operator wallet "):
			s.wallet = f[2]
		case strings.HasPrefix(line, "simulator control "):
			s.control = f[2]
		case strings.HasPrefix(line, "  ") && len(f) == 3:
			s.named[f[0]+" "+f[1]] = f[2]
		}
	}
	if s.urls.Market == "" || s.urls.RPC == "" || s.urls.Jito == "" || s.wallet == "" || s.control == "" {
		return fmt.Errorf("missing an address: %+v, wallet %q, control %q", s.urls, s.wallet, s.control)
	}
	return nil
}

// address returns the address of a thing the simulator listed ("vault", "alpha-vault").
func (s *simProc) address(t testing.TB, kind, name string) string {
	t.Helper()
	a, ok := s.named[kind+" "+name]
	if !ok {
		t.Fatalf("keeper sim listed no %s %q (it listed %v)", kind, name, s.named)
	}
	return a
}

// advance posts req to /_sim/advance.
func (s *simProc) advance(ctx context.Context, req sim.AdvanceRequest) (sim.AdvanceResult, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return sim.AdvanceResult{}, err
	}
	var res sim.AdvanceResult
	return res, s.call(ctx, http.MethodPost, "advance", body, &res)
}

// call sends one control request and decodes its answer into out.
func (s *simProc) call(ctx context.Context, method, route string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, s.control+route, bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", method, route, resp.Status, b)
	}
	return json.Unmarshal(b, out)
}

// until moves the sim clock to secs after the simulator's start (if it is not there yet) and runs
// the scenario events due by then.
func (s *simProc) until(t *testing.T, secs float64) {
	t.Helper()
	res, err := s.advance(t.Context(), sim.AdvanceRequest{Until: secs})
	if err != nil {
		t.Fatalf("advance until %gs: %v", secs, err)
	}
	if res.Elapsed < secs {
		t.Fatalf("advance until %gs: the clock is at %gs", secs, res.Elapsed)
	}
}

// state reads the simulator's state.
func (s *simProc) state(t testing.TB) sim.ControlState {
	t.Helper()
	var st sim.ControlState
	if err := s.call(t.Context(), http.MethodGet, "state", nil, &st); err != nil {
		t.Fatalf("sim state: %v", err)
	}
	return st
}

// pace moves the clock one slot after each chain request of the process under test (the request
// itself is the signal: no wall-clock timing), so that what it sends lands and confirms. It returns
// how many slots it moved: with a nil error once ctx ends (the process exited), with an error after
// maxSteps slots.
func (s *simProc) pace(ctx context.Context, maxSteps int) (int, error) {
	res, err := s.advance(ctx, sim.AdvanceRequest{})
	if err != nil {
		return 0, ignoreEnded(ctx, err)
	}
	seen := res.Traffic
	for step := range maxSteps {
		res, err := s.advance(ctx, sim.AdvanceRequest{Seconds: slotSeconds, AfterTraffic: &seen})
		if err != nil {
			return step, ignoreEnded(ctx, err)
		}
		seen = res.Traffic
	}
	return maxSteps, fmt.Errorf("the clock moved %d slots and the process still runs", maxSteps)
}

// ignoreEnded drops err once ctx has ended: the process under test exited.
func ignoreEnded(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// runActing runs keeper with args in dir while pace moves the clock, and returns once it exited.
func (s *simProc) runActing(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return s.runActingWith(t, procOptions{}, dir, args...)
}

// runActingWith is runActing with o.
func (s *simProc) runActingWith(t *testing.T, o procOptions, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), procTimeout)
	defer cancel()
	paceCtx, stopPace := context.WithCancel(ctx)
	type paceResult struct {
		steps int
		err   error
	}
	paced := make(chan paceResult, 1)
	go func() {
		steps, err := s.pace(paceCtx, maxPaceSteps)
		if err != nil {
			cancel() // the process cannot finish: end it
		}
		paced <- paceResult{steps, err}
	}()
	r, runErr := runUntilDoneWith(ctx, o, dir, args...)
	stopPace()
	p := <-paced
	if p.err != nil {
		t.Fatalf("keeper %s: pacing the clock: %v; stderr:\n%s", strings.Join(args, " "), p.err, r.stderr)
	}
	if runErr != nil {
		t.Fatal(runErr)
	}
	t.Logf("keeper %s: exit %d; the clock moved %d slots meanwhile", strings.Join(args[:2], " "), r.code, p.steps)
	return r
}
