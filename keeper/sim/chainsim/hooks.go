package chainsim

import "sync"

// hooks are the functions OnLanded registered and the landed transactions
// they have yet to see. They have their own lock, so hooks run after the
// chain's lock is released and may call the chain.
type hooks struct {
	mu          sync.Mutex
	fns         []func(Landed) // guarded by mu
	events      []Landed       // guarded by mu; landed, hooks not yet run
	dispatching bool           // guarded by mu
}

// add registers f.
func (h *hooks) add(f func(Landed)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fns = append(h.fns, f)
}

// emit queues a landed transaction for the hooks. The caller holds the
// chain's mu.
func (h *hooks) emit(l Landed) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.fns) > 0 {
		h.events = append(h.events, l)
	}
}

// dispatch runs queued hooks unless another goroutine already is.
func (h *hooks) dispatch() {
	h.mu.Lock()
	if h.dispatching {
		h.mu.Unlock()
		return
	}
	h.dispatching = true
	for len(h.events) > 0 {
		ev, fns := h.events[0], h.fns
		h.events = h.events[1:]
		h.mu.Unlock()
		for _, f := range fns {
			f(ev)
		}
		h.mu.Lock()
	}
	h.dispatching = false
	h.mu.Unlock()
}
