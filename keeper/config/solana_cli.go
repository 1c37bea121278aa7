package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Monikers are the Solana CLI's names for the public clusters and a local
// validator, accepted wherever an RPC URL is (chain.rpc_url, chain.rpc_urls,
// -u). The single letters are the CLI's own short forms.
var monikers = map[string]string{
	"mainnet-beta": "https://api.mainnet-beta.solana.com",
	"devnet":       "https://api.devnet.solana.com",
	"testnet":      "https://api.testnet.solana.com",
	"localhost":    "http://localhost:8899",
	"m":            "https://api.mainnet-beta.solana.com",
	"d":            "https://api.devnet.solana.com",
	"t":            "https://api.testnet.solana.com",
	"l":            "http://localhost:8899",
}

// ResolveURL returns the RPC URL a moniker names, or s itself.
func ResolveURL(s string) string {
	if u, ok := monikers[s]; ok {
		return u
	}
	return s
}

// SolanaCLI is what the Solana CLI's config file says keeper can use.
type SolanaCLI struct {
	// Path is the file read.
	Path    string
	RPCURL  string `yaml:"json_rpc_url"`
	Keypair string `yaml:"keypair_path"`
}

// solanaCLIPath is where the Solana CLI keeps its config: the file
// SOLANA_CLI_CONFIG names (keeper's own override), else
// ~/.config/solana/cli/config.yml, as `solana config get` shows.
func solanaCLIPath(lookupEnv func(string) (string, bool)) string {
	if p, ok := lookupEnv("SOLANA_CLI_CONFIG"); ok && p != "" {
		return p
	}
	home, ok := lookupEnv("HOME")
	if !ok || home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "solana", "cli", "config.yml")
}

// readSolanaCLI reads the Solana CLI's config file; a missing file is no
// config and no error.
func readSolanaCLI(path string) (*SolanaCLI, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the Solana CLI config %s: %w", path, errorWithoutContent(err))
	}
	var c SolanaCLI
	if err := yaml.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("the Solana CLI config %s is not YAML keeper can read", path)
	}
	c.Path = path
	c.RPCURL = strings.TrimSpace(c.RPCURL)
	c.Keypair = strings.TrimSpace(c.Keypair)
	return &c, nil
}

// SetRPC points chain.rpc_url at raw, a URL or a moniker, as the -u flag of
// the commands does. An explorer cluster the config file did not set
// follows the new URL.
func (c *Config) SetRPC(raw string) error {
	u := ResolveURL(raw)
	v := validator{}
	v.url([]any{}, "-u", u, true)
	if err := v.errs.Err(); err != nil {
		return err
	}
	c.Chain.RPCURL = URL(u)
	c.FromSolanaCLI = slices.DeleteFunc(c.FromSolanaCLI, func(k string) bool { return k == "chain.rpc_url" })
	if c.explorerDefaults {
		c.Explorer = Explorer{}
		c.Explorer.validate(&validator{}, c.Chain.RPCURL)
	}
	return nil
}
