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
	stop    bool         // freeze (SIGSTOP) instead of kill
	hits    atomic.Int64 // hits of armed so far
)

// arm reads Env once.
func arm() {
	spec, how, _ := strings.Cut(os.Getenv(Env), "@")
	stop = how == "stop"
	name, n, found := strings.Cut(spec, ":")
	armed, after = name, 1
	if found {
		if v, err := strconv.ParseInt(n, 10, 64); err == nil && v > 0 {
			after = v
		}
	}
}

// Hit kills the process with SIGKILL when name is the armed point and this is its armed hit; armed
// with "@stop", it freezes the process with SIGSTOP instead, saying so on standard error first, and
// returns when the process is continued (SIGCONT).
func Hit(name string) {
	armOnce.Do(arm)
	if name != armed || hits.Add(1) != after {
		return
	}
	if stop {
		freeze(name)
		return
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // SIGKILL is not delivered synchronously; never return from here
}
