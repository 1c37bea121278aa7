package apiwire

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// StrategyDuration is a loan term of the spec: duration units of durationType, both int32 >= 0.
type StrategyDuration struct {
	DurationType DurationType `json:"durationType"`
	Duration     int32        `json:"duration"`
}

// String names the duration as "7 days".
func (d StrategyDuration) String() string {
	names := []string{"days", "weeks", "months", "minutes", "years"}
	if d.DurationType >= 0 && int(d.DurationType) < len(names) {
		return fmt.Sprintf("%d %s", d.Duration, names[d.DurationType])
	}
	return fmt.Sprintf("%d durationType(%d)", d.Duration, d.DurationType)
}

// Key returns the duration-map key of d, its JSON text.
func (d StrategyDuration) Key() string {
	return fmt.Sprintf(`{"durationType":%d,"duration":%d}`, d.DurationType, d.Duration)
}

// ParseDurationKey parses a duration-map key of E1 (a serialized strategy duration): both members
// required, no other, neither negative.
func ParseDurationKey(key string) (StrategyDuration, error) {
	var raw struct {
		DurationType *DurationType `json:"durationType"`
		Duration     *int32        `json:"duration"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(key)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return StrategyDuration{}, fmt.Errorf("duration key %q: %w", key, err)
	}
	if raw.DurationType == nil || raw.Duration == nil {
		return StrategyDuration{}, fmt.Errorf("duration key %q: durationType and duration are both required", key)
	}
	if *raw.DurationType < 0 || *raw.Duration < 0 {
		return StrategyDuration{}, fmt.Errorf("duration key %q: must be >= 0", key)
	}
	return StrategyDuration{DurationType: *raw.DurationType, Duration: *raw.Duration}, nil
}
