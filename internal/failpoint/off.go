//go:build !failpoint

package failpoint

// Hit marks point name; in a normal build it does nothing.
func Hit(string) {}

// Enabled reports whether this binary was built with failpoints.
const Enabled = false
