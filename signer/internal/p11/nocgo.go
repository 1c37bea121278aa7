//go:build !cgo

package p11

// Cgo reports whether this build can load a PKCS#11 library.
const Cgo = false

// loadModule fails: loading a PKCS#11 library takes cgo.
func loadModule(string) (module, error) { return nil, ErrNeedsCgo }
