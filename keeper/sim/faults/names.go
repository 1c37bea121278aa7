package faults

import (
	"fmt"
	"slices"
	"strings"
)

// enumName returns the name of v in names, indexed by value, or kind(v) for a value without one.
func enumName[E ~int](v E, names []string, kind string) string {
	if v < 0 || int(v) >= len(names) {
		return fmt.Sprintf("%s(%d)", kind, int(v))
	}
	return names[v]
}

// parseEnum returns the value that names (indexed by value) calls name, or an error naming the what
// that name is not and the names there are.
func parseEnum[E ~int](name string, names []string, what string) (E, error) {
	if i := slices.Index(names, name); i >= 0 {
		return E(i), nil
	}
	return 0, fmt.Errorf("unknown %s %q (one of %s)", what, name, strings.Join(names, ", "))
}
