package journal

import (
	"database/sql"
	"math"
	"time"
)

// fromNanos turns a stored UTC unix-nanosecond time back into a time.
func fromNanos(n int64) time.Time {
	return time.Unix(0, n).UTC()
}

// fromNullNanos is fromNanos for a nullable column; NULL is the zero time.
func fromNullNanos(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return fromNanos(n.Int64)
}

// lowerBound returns t as stored, or the smallest value for the zero time,
// so that a zero "since" selects everything.
func lowerBound(t time.Time) int64 {
	if t.IsZero() {
		return math.MinInt64
	}
	return t.UnixNano()
}

// upperBound returns t as stored, or the largest value for the zero time,
// so that a zero "until" selects everything.
func upperBound(t time.Time) int64 {
	if t.IsZero() {
		return math.MaxInt64
	}
	return t.UnixNano()
}
