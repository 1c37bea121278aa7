package sim

import "net/http"

// idempotencyStore remembers the successful answers of writes by Idempotent-Key. It is guarded by
// Sim.mu.
type idempotencyStore struct {
	entries map[string]idemEntry
}

// idemEntry is one remembered answer.
type idemEntry struct {
	fp  [32]byte
	rep reply
}

// newIdempotencyStore returns an empty store.
func newIdempotencyStore() *idempotencyStore {
	return &idempotencyStore{entries: map[string]idemEntry{}}
}

// lookup returns the answer stored under key when fp matches, a 409 when the key was used for another
// request, and false when the key is new.
func (s *idempotencyStore) lookup(key string, fp [32]byte) (reply, bool, error) {
	e, ok := s.entries[key]
	switch {
	case !ok:
		return reply{}, false, nil
	case e.fp != fp:
		return reply{}, false, &apiError{status: http.StatusConflict,
			msg: "idempotency key " + key + " was already used with a different request"}
	}
	return e.rep, true, nil
}

// store remembers an answer.
func (s *idempotencyStore) store(key string, fp [32]byte, rep reply) {
	s.entries[key] = idemEntry{fp: fp, rep: rep}
}
