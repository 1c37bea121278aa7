package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/keeper-project/keeper/keeper/config"
)

// configFlags are the flags of every command that reads the config: the
// file, and the RPC in the Solana CLI's manner (-u devnet).
type configFlags struct {
	path string
	url  string
}

// addConfigFlags defines --config, --url and -u on fs.
func addConfigFlags(fs *flag.FlagSet) *configFlags {
	c := &configFlags{}
	fs.StringVar(&c.path, "config", "config.yaml", "config file")
	const usage = "RPC URL or moniker (mainnet-beta, devnet, testnet, localhost, or m, d, t, l) instead of chain.rpc_url"
	fs.StringVar(&c.url, "url", "", usage)
	fs.StringVar(&c.url, "u", "", "shorthand for --url")
	return c
}

// load reads the config, applies --url, and says on stderr which keys came
// from the Solana CLI's config file.
func (c *configFlags) load(s *streams) (*config.Config, error) {
	cfg, err := config.LoadFile(c.path)
	if err != nil {
		return nil, err
	}
	if c.url != "" {
		if err := cfg.SetRPC(c.url); err != nil {
			return nil, fmt.Errorf("--url: %w", err)
		}
	}
	if len(cfg.FromSolanaCLI) > 0 {
		fmt.Fprintf(s.err, "keeper: %s from the Solana CLI config %s (the config file sets neither)\n",
			strings.Join(cfg.FromSolanaCLI, " and "), cfg.SolanaCLIPath)
	}
	return cfg, nil
}
