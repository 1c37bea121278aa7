//go:build !cgo

package signer

// cgoBuild reports whether this build can load a PKCS#11 library.
const cgoBuild = false

// loadModule fails: loading a PKCS#11 library takes cgo.
func loadModule(string) (module, error) { return nil, ErrTokenNeedsCgo }
