package market

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	json "github.com/go-json-experiment/json/v1"
)

// StrategyDuration is a loan term: Duration units of DurationType. Both are >= 0. Its JSON form puts
// durationType first, which is also the form of duration-map keys.
type StrategyDuration struct {
	DurationType DurationType `json:"durationType"`
	Duration     int32        `json:"duration"`
}

// String returns e.g. "7 days".
func (d StrategyDuration) String() string {
	return strconv.FormatInt(int64(d.Duration), 10) + " " + d.DurationType.String()
}

// Key returns the duration-map key of d: the JSON text {"durationType":T,"duration":N}, durationType
// first, no spaces.
func (d StrategyDuration) Key() string {
	return `{"durationType":` + strconv.FormatInt(int64(d.DurationType), 10) +
		`,"duration":` + strconv.FormatInt(int64(d.Duration), 10) + `}`
}

// Validate reports a negative duration or duration type.
func (d StrategyDuration) Validate() error {
	if d.Duration < 0 || d.DurationType < 0 {
		return fmt.Errorf("duration %d of type %d: must be >= 0", d.Duration, d.DurationType)
	}
	return nil
}

// ParseDurationKey parses a duration-map key. It accepts the members in either order and refuses
// unknown members, missing members and negative values.
func ParseDurationKey(key string) (StrategyDuration, error) {
	var raw struct {
		DurationType *DurationType `json:"durationType"`
		Duration     *int32        `json:"duration"`
	}
	if err := strictUnmarshal([]byte(key), &raw); err != nil {
		return StrategyDuration{}, fmt.Errorf("duration key %q: %w", Echo(key), err)
	}
	if raw.DurationType == nil || raw.Duration == nil {
		return StrategyDuration{}, fmt.Errorf("duration key %q: durationType and duration are both required", Echo(key))
	}
	d := StrategyDuration{DurationType: *raw.DurationType, Duration: *raw.Duration}
	return d, d.Validate()
}

// DurationAPYs converts duration terms to the wire form of durationsAndApys and apyUpdate: duration
// keys mapped to centi-basis points as decimal strings.
func DurationAPYs(terms map[StrategyDuration]CBPS) map[string]string {
	out := make(map[string]string, len(terms))
	for d, apy := range terms {
		out[d.Key()] = apy.Decimal()
	}
	return out
}

// ParseDurationAPYs converts the wire form of a duration map back to typed terms.
func ParseDurationAPYs(m map[string]string) (map[StrategyDuration]CBPS, error) {
	out := make(map[StrategyDuration]CBPS, len(m))
	var errs []error
	for k, v := range m {
		d, err := ParseDurationKey(k)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		apy, err := ParseCBPS(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("duration %s: %w", d, err))
			continue
		}
		out[d] = apy
	}
	return out, errors.Join(errs...)
}

// strictUnmarshal decodes one JSON value, refusing unknown fields and trailing data.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the value")
	}
	return nil
}
