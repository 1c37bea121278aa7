// Package lazy holds values made when first used. Every keeper command links
// the simulator and most never run it, so the simulator's packages keep their
// start-up work at none: a package-level [Value] is laid out by the linker,
// where a package-level sync.OnceValue(...) or a value computed in its
// initializer would run when any keeper command starts (and touch the code
// that computes it).
package lazy

import "sync"

// Value is a value made by Make when first used.
type Value[T any] struct {
	once sync.Once
	// Make makes the value; it runs once, on the first Get.
	Make func() T
	v    T
}

// Get returns the value, making it on first use.
func (l *Value[T]) Get() T {
	l.once.Do(func() { l.v = l.Make() })
	return l.v
}
