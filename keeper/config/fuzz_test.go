package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds arbitrary documents to the config loader: nothing may panic, and an error never
// quotes a long value of the input (a key file or a keyed URL loaded by mistake).
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"full.good.yaml", "minimal.good.yaml", "env.bad.yaml", "semantic.bad.yaml", "types.bad.yaml", "unknown.bad.yaml"} {
		if data, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(data)
		}
	}
	if data, err := os.ReadFile(filepath.Join("..", "..", "config.yaml")); err == nil {
		f.Add(data)
	}
	f.Add([]byte("market: {base_url: 'https://h/v1?key=SECRETSECRETSECRETSECRET'}\n"))
	f.Add([]byte("4wBqpZM9k7tSAWGT2E3vJbMk8qKz8R5h6tNpXwVbY3cD1aFgHjKmNpQrStUvWxYz23456789abcdefghijk\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Load("c.yaml", "", data, lookup)
		if err == nil {
			return
		}
		for _, word := range strings.Fields(string(data)) {
			word = strings.TrimSuffix(word, ":") // a key ("<secret>: 1") is checked as a value is
			if len(word) >= 48 && !strings.ContainsAny(word, "\"'{}[]:,#") && strings.Contains(err.Error(), word) {
				t.Fatalf("error quotes a %d-character value of the input: %v", len(word), err)
			}
		}
	})
}
