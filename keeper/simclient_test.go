package keeper

import (
	"encoding/json"
	"testing"
)

// asClient returns v, a record the simulator's accessors return in its own wire types, as keeper's
// market client reads it: encoded by the simulator's rules and decoded by the client's, so that a
// test applies keeper's logic to what keeper would see.
func asClient[T any](tb testing.TB, v any) T {
	tb.Helper()
	var out T
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("encode %T: %v", v, err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		tb.Fatalf("decode %T as %T: %v", v, out, err)
	}
	return out
}
