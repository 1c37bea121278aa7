//go:build failpoint

package failpoint

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// Enabled reports whether this binary was built with failpoints.
const Enabled = true

var (
	armOnce sync.Once
	armed   string       // the point named by Env, or ""
	after   int64        // the hit that kills: 1 for the first
	hits    atomic.Int64 // hits of armed so far
)

// arm reads Env once.
func arm() {
	name, n, found := strings.Cut(os.Getenv(Env), ":")
	armed, after = name, 1
	if found {
		if v, err := strconv.ParseInt(n, 10, 64); err == nil && v > 0 {
			after = v
		}
	}
}

// Hit kills the process with SIGKILL when name is the armed point and this is its armed hit.
func Hit(name string) {
	armOnce.Do(arm)
	if name != armed || hits.Add(1) != after {
		return
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // SIGKILL is not delivered synchronously; never return from here
}
