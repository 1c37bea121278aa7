// Package servertiming writes and reads the Server-Timing header (W3C
// Server Timing) by which the simulator's services tell how long they
// worked on an answer and how long they held it back for the latency a
// fault injects, so that a benchmark can count that time as the network's
// and the server's, not the client's.
package servertiming

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header is the header's name.
const Header = "Server-Timing"

// latencyMetric names the metric of the injected latency.
const latencyMetric = "latency"

// Timing is what one answer's header tells.
type Timing struct {
	// Name is the work's name: a JSON-RPC method or a market endpoint (an
	// HTTP token).
	Name string
	// Work is the time the server spent on the answer.
	Work time.Duration
	// Latency is the time the server held the request back for an
	// injected latency, as measured: a timer wakes a little after the
	// latency asked for, and a client waits that long too.
	Latency time.Duration
}

// Set records t on h: the first metric is the work, under its name; a
// second metric, "latency", follows when the request was held back.
func Set(h http.Header, t Timing) {
	v := t.Name + ";dur=" + millis(t.Work)
	if t.Latency > 0 {
		v += ", " + latencyMetric + ";dur=" + millis(t.Latency)
	}
	h.Set(Header, v)
}

// millis formats d in milliseconds, to the microsecond.
func millis(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64)
}

// Parse reads a header Set wrote: the first metric's name and duration,
// and the duration of a later metric named "latency" when there is one. It
// reports false for an empty or malformed value, or one whose first metric
// or latency has no duration.
func Parse(v string) (Timing, bool) {
	first, rest, _ := strings.Cut(v, ",")
	name, d, ok := metric(first)
	if !ok || name == "" {
		return Timing{}, false
	}
	t := Timing{Name: name, Work: d}
	for m := range strings.SplitSeq(rest, ",") {
		if n, d, ok := metric(m); strings.EqualFold(n, latencyMetric) {
			if !ok {
				return Timing{}, false
			}
			t.Latency = d
		}
	}
	return t, true
}

// metric reads one metric: its name and its dur parameter, false when it
// has no valid one.
func metric(m string) (string, time.Duration, bool) {
	name, params, _ := strings.Cut(strings.TrimSpace(m), ";")
	for p := range strings.SplitSeq(params, ";") {
		k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(k, "dur") {
			continue
		}
		ms, err := strconv.ParseFloat(val, 64)
		if err != nil || ms < 0 {
			return name, 0, false
		}
		return name, time.Duration(ms * float64(time.Millisecond)), true
	}
	return name, 0, false
}
