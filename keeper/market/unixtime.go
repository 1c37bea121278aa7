package market

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// UnixTime is a timestamp in unix seconds, the unit the service uses for every integer timestamp
// (an assumption for all but the historical-holders range; see docs/assumptions.md). It decodes from a
// JSON number or string (a fractional value is truncated to whole seconds) and encodes as a JSON integer.
type UnixTime int64

// UnixTimeOf returns t as a UnixTime.
func UnixTimeOf(t time.Time) UnixTime { return UnixTime(t.Unix()) }

// Time returns the timestamp as a UTC time.Time.
func (u UnixTime) Time() time.Time { return time.Unix(int64(u), 0).UTC() }

// MarshalJSON encodes the timestamp as a JSON integer.
func (u UnixTime) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, int64(u), 10), nil
}

// UnmarshalJSON decodes a JSON number or a string holding a number.
func (u *UnixTime) UnmarshalJSON(b []byte) error {
	return unmarshalScalar(b, u, "timestamp", parseUnixTime)
}

// parseUnixTime parses unix seconds, truncating a fractional value to whole seconds.
func parseUnixTime(text string) (UnixTime, error) {
	text = strings.TrimSpace(text)
	if v, err := strconv.ParseInt(text, 10, 64); err == nil {
		return UnixTime(v), nil
	}
	f, err := parseFinite(text)
	if err != nil || math.Abs(f) >= math.MaxInt64 {
		return 0, fmt.Errorf("timestamp: %q is not a unix time", Echo(text))
	}
	return UnixTime(math.Trunc(f)), nil
}
