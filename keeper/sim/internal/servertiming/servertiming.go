// Package servertiming writes and reads the Server-Timing header (W3C
// Server Timing) by which the simulator's services tell how long they
// worked on an answer, so that a benchmark can count that work as the
// server's, not the client's.
package servertiming

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header is the header's name.
const Header = "Server-Timing"

// Set records on h that the server spent d on the work called name; name
// must be an HTTP token (a JSON-RPC method or a market endpoint is).
func Set(h http.Header, name string, d time.Duration) {
	ms := strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64)
	h.Set(Header, name+";dur="+ms)
}

// Parse reads the first metric of a header Set wrote: its name and
// duration. It reports false for an empty or malformed value, or one
// without a duration.
func Parse(v string) (string, time.Duration, bool) {
	first, _, _ := strings.Cut(v, ",")
	name, params, _ := strings.Cut(strings.TrimSpace(first), ";")
	if name == "" {
		return "", 0, false
	}
	for p := range strings.SplitSeq(params, ";") {
		k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(k, "dur") {
			continue
		}
		ms, err := strconv.ParseFloat(val, 64)
		if err != nil || ms < 0 {
			return "", 0, false
		}
		return name, time.Duration(ms * float64(time.Millisecond)), true
	}
	return "", 0, false
}
