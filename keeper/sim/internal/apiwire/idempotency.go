package apiwire

import "net/http"

// IdempotencyStore remembers the successful answers of writes by Idempotent-Key. It is guarded by
// the market's lock.
type IdempotencyStore struct {
	entries map[string]idemEntry
}

// idemEntry is one remembered answer.
type idemEntry struct {
	fp  [32]byte
	rep Reply
}

// NewIdempotencyStore returns an empty store.
func NewIdempotencyStore() *IdempotencyStore {
	return &IdempotencyStore{entries: map[string]idemEntry{}}
}

// Lookup returns the answer stored under key when fp matches, a 409 when the key was used for another
// request, and false when the key is new.
func (s *IdempotencyStore) Lookup(key string, fp [32]byte) (Reply, bool, error) {
	e, ok := s.entries[key]
	switch {
	case !ok:
		return Reply{}, false, nil
	case e.fp != fp:
		return Reply{}, false, &Error{Status: http.StatusConflict,
			Msg: "idempotency key " + key + " was already used with a different request"}
	}
	return e.rep, true, nil
}

// Store remembers an answer.
func (s *IdempotencyStore) Store(key string, fp [32]byte, rep Reply) {
	s.entries[key] = idemEntry{fp: fp, rep: rep}
}
