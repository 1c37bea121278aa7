package signer

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// maxKeyFileSize bounds what Load reads from a key file; a keypair file is
// well under 300 bytes.
const maxKeyFileSize = 4096

// KeySource says where Load finds the secret key. Exactly one of Path and Env
// must be set.
type KeySource struct {
	// Path is a key file: a Solana CLI keypair (a JSON array of 64 byte
	// values) or a base58-encoded 64-byte secret. "~" or a leading "~/" is
	// expanded to the user's home directory. Choosing a default path (such as
	// ~/.config/solana/id.json) is the caller's business.
	Path string
	// Env names an environment variable holding the secret, base58 or a JSON
	// array like a keypair file. The variable stays in the process
	// environment; prefer a file.
	Env string
	// AllowInsecurePermissions lets Load read a key file that group or others
	// may read or write. Refused by default, as ssh does.
	AllowInsecurePermissions bool
}

// Load reads a key as src says and returns a Signer without a guard (see
// [Signer.WithGuard]). Errors name the file or variable but never quote its
// content.
func Load(src KeySource) (*Signer, error) {
	switch {
	case src.Path != "" && src.Env != "":
		return nil, errors.New("signer: load key: set either a key file or an environment variable, not both")
	case src.Path != "":
		return loadFile(src.Path, src.AllowInsecurePermissions)
	case src.Env != "":
		return loadEnv(src.Env)
	}
	return nil, errors.New("signer: load key: no key file or environment variable given")
}

func loadEnv(name string) (*Signer, error) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return nil, fmt.Errorf("signer: load key from environment variable %s: not set", name)
	}
	b := []byte(v)
	defer clear(b)
	s, err := parseSecret(b)
	if err != nil {
		return nil, fmt.Errorf("signer: load key from environment variable %s: %w", name, err)
	}
	return s, nil
}

func loadFile(path string, allowInsecure bool) (*Signer, error) {
	p, err := expandHome(path)
	if err != nil {
		return nil, fmt.Errorf("signer: load key file %s: %w", path, err)
	}
	b, err := readKeyFile(p, allowInsecure)
	if err != nil {
		return nil, fmt.Errorf("signer: load key file %s: %w", p, err)
	}
	defer clear(b)
	s, err := parseSecret(b)
	if err != nil {
		return nil, fmt.Errorf("signer: load key file %s: %w", p, err)
	}
	return s, nil
}

// readKeyFile opens path, checks the opened file's type and permissions (no
// race between check and read), and reads at most maxKeyFileSize bytes.
func readKeyFile(path string, allowInsecure bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (mode %s)", info.Mode())
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 && !allowInsecure && runtime.GOOS != "windows" {
		return nil, fmt.Errorf("permissions %#o let group or others access the key; run chmod 600 on it (or allow insecure permissions in config)", perm)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFileSize+1))
	if err != nil {
		clear(b)
		return nil, err
	}
	if len(b) > maxKeyFileSize {
		clear(b)
		return nil, fmt.Errorf("larger than %d bytes: not a key file", maxKeyFileSize)
	}
	return b, nil
}

// expandHome expands "~" and a leading "~/". "~user" is not supported.
func expandHome(path string) (string, error) {
	if path != "~" && !strings.HasPrefix(path, "~/") {
		if strings.HasPrefix(path, "~") {
			return "", errors.New("only ~ and ~/ are expanded, not ~user")
		}
		return path, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("expand ~: %w", err)
	}
	return filepath.Join(home, strings.TrimPrefix(path, "~")), nil
}
