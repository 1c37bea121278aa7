package chainsim

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// jsonEqual compares a decoded value with want after normalising both
// through JSON (numbers become strings, as solana-go decodes them with
// UseNumber).
func jsonEqual(t testing.TB, got, want any) bool {
	t.Helper()
	return reflect.DeepEqual(normalise(t, got), normalise(t, want))
}

// normalise round-trips v through JSON, turning numbers into strings.
func normalise(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %v: %v", v, err)
	}
	var out any
	dec := json.NewDecoder(bytesReader(b))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	return numbersToStrings(out)
}

// numbersToStrings replaces json.Number values with their text.
func numbersToStrings(v any) any {
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case []any:
		for i := range x {
			x[i] = numbersToStrings(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = numbersToStrings(x[k])
		}
	}
	return v
}

// bytesReader returns a reader of b.
func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
