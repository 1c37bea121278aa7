package keeper

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/keeper-project/keeper/policies"
)

// runnerSet is the runners of the loaded policies, by name.
type runnerSet struct {
	mu     sync.Mutex
	byName map[string]*runner
}

func newRunnerSet() *runnerSet { return &runnerSet{byName: map[string]*runner{}} }

// use returns the runner of p's name, made to run p from now on: a new one
// (created), or the existing one with p as its policy (rescheduled when
// p's schedule differs from the one it ran).
func (s *runnerSet) use(k *Keeper, p *policies.Policy) (r *runner, created, rescheduled bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.byName[p.Name]; ok {
		return r, false, r.setPolicy(p)
	}
	r = newRunner(k, p)
	s.byName[p.Name] = r
	return r, true, false
}

// find returns the runner of the named policy, or nil.
func (s *runnerSet) find(name string) *runner {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byName[name]
}

// remove drops the runner of the named policy, and with it its state.
func (s *runnerSet) remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byName, name)
}

// names lists the runners' policy names, sorted.
func (s *runnerSet) names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.byName))
	for name := range s.byName {
		out = append(out, name)
	}
	slices.SortFunc(out, strings.Compare)
	return out
}

// apply makes ps the running set: a new or rescheduled policy gets a
// scheduler entry, an unchanged one keeps its entry, a changed one keeps its
// runner and with it its state, and a disabled or removed one stops.
func (s *runnerSet) apply(k *Keeper, ps []*policies.Policy) {
	seen := map[string]bool{}
	enabled := 0
	for _, p := range ps {
		if !p.Enabled {
			continue
		}
		seen[p.Name] = true
		enabled++
		k.metrics.knowPolicy(p.Name, p.Kind)
		r, created, rescheduled := s.use(k, p)
		if !created && !rescheduled {
			continue
		}
		if err := k.scheduler.add(p.Name, p.Schedule, p.JitterDelay(), r.tick); err != nil {
			k.logger.Error("Cannot schedule policy", "policy", p.Name, "err", err)
			s.remove(p.Name)
		}
	}
	for _, name := range s.names() {
		if !seen[name] {
			k.scheduler.remove(name)
			s.remove(name)
			k.metrics.forgetPolicy(name)
		}
	}
	k.metrics.PoliciesLoaded.Set(float64(enabled))
	if k.triggers != nil {
		k.triggers.apply(ps)
	}
}

// slots are the config's policy_concurrency: how many policies run at once.
type slots chan struct{}

func newSlots(n int) slots { return make(slots, max(1, n)) }

// acquire waits for a slot; the returned function frees it. ok is false
// when ctx ended first.
func (s slots) acquire(ctx context.Context) (release func(), ok bool) {
	select {
	case s <- struct{}{}:
		return func() { <-s }, true
	case <-ctx.Done():
		return func() {}, false
	}
}
