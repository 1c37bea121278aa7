package apiwire

import (
	"fmt"
	"strconv"
)

// The spec's scalars as the simulator writes them: every integer (an amount in a token's base units,
// a timestamp, a ratio in centi-basis points) is a JSON integer, every number a JSON number. They are
// named for what they hold; none has a JSON form of its own.
type (
	// Amount is a token amount in the token's base units.
	Amount uint64
	// UnixTime is a timestamp in unix seconds (the unit is the simulator's assumption,
	// docs/assumptions.md).
	UnixTime int64
	// CBPS is a ratio in centi-basis points: 1,000,000 is 100 %.
	CBPS int64
	// Number is a real value.
	Number float64
)

// CBPSOne is 100 % in centi-basis points.
const CBPSOne CBPS = 1_000_000

// ParseCBPS parses centi-basis points written as a decimal integer string, as E1 writes APYs and
// allocation caps.
func ParseCBPS(s string) (CBPS, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer of centi-basis points", s)
	}
	return CBPS(v), nil
}
