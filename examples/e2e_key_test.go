package examples_test

import (
	"crypto/ed25519"
	"encoding/json"
	"os"
	"testing"
)

// writeKeypair writes a new Solana CLI keypair file (a JSON array of the 64 bytes of an ed25519
// secret key) at path with mode, and returns path.
func writeKeypair(t *testing.T, path string, mode os.FileMode) string {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(bytesAsInts(priv))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// bytesAsInts is b as a list of numbers, as the Solana CLI writes a key (json.Marshal would write
// a []byte as base64).
func bytesAsInts(b []byte) []int {
	out := make([]int, len(b))
	for i, v := range b {
		out[i] = int(v)
	}
	return out
}
