package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/internal/strictyaml"
	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/journal"
)

// configFlags are the flags of every command that reads the config: the
// file, and the RPC in the Solana CLI's manner (-u devnet).
type configFlags struct {
	path       string
	url        string
	keypair    string // a keypair file instead of signer's
	commitment string // instead of chain.commitment
	wallet     string // read-only commands: the wallet to read for, no key
	// quiet loads without the notifiers' secrets (the command sends nothing).
	quiet bool
}

// monikerList names the Solana CLI's cluster monikers -u takes.
const monikerList = "mainnet-beta, devnet, testnet, localhost, or m, d, t, l"

// addConfigFlags defines --config and, in the Solana CLI's manner, --url
// and -u on fs.
func addConfigFlags(fs *flag.FlagSet) *configFlags {
	c := &configFlags{}
	fs.StringVar(&c.path, "config", "config.yaml", "config file")
	fs.StringVar(&c.url, "url", "", "RPC URL or moniker ("+monikerList+") instead of chain.rpc_url")
	fs.StringVar(&c.url, "u", "", "shorthand for --url")
	return c
}

// addKeypairFlag defines --keypair and -k on fs, as the Solana CLI's.
func (c *configFlags) addKeypairFlag(fs *flag.FlagSet) *configFlags {
	fs.StringVar(&c.keypair, "keypair", "", "a Solana CLI keypair file instead of the config's signer")
	fs.StringVar(&c.keypair, "k", "", "shorthand for --keypair")
	return c
}

// addChainFlags is addConfigFlags plus --keypair (-k) and --commitment, for
// the commands that read the chain.
func addChainFlags(fs *flag.FlagSet) *configFlags {
	c := addConfigFlags(fs).addKeypairFlag(fs)
	fs.StringVar(&c.commitment, "commitment", "", "confirmed or finalized, instead of chain.commitment (keeper never acts on processed)")
	return c
}

// addReadOnlyFlags is addChainFlags plus --wallet, for the commands that
// only read: they need no key.
func addReadOnlyFlags(fs *flag.FlagSet) *configFlags {
	c := addChainFlags(fs)
	fs.StringVar(&c.wallet, "wallet", "", "the wallet's public key (base58), instead of signer.pubkey or the key's; no key is loaded")
	return c
}

// load reads the config, applies --url, and says on stderr which keys came
// from the Solana CLI's config file.
func (c *configFlags) load(s *streams) (*config.Config, error) {
	cfg, err := config.LoadFileWith(c.path, config.LoadOptions{Quiet: c.quiet})
	if err != nil {
		return nil, err
	}
	if err := c.apply(cfg); err != nil {
		return nil, err
	}
	if c.wallet != "" {
		if _, err := solana.PublicKeyFromBase58(c.wallet); err != nil {
			return nil, fmt.Errorf("--wallet %s is not a base58 public key", strictyaml.NameExcerpt(c.wallet))
		}
		cfg.Signer.PublicKey = c.wallet
		cfg.Signer.Keypair, cfg.Signer.SecretEnv, cfg.Signer.SecretFile = "", "", "" // read only: no key
	}
	if len(cfg.FromSolanaCLI) > 0 {
		fmt.Fprintf(s.err, "keeper: %s from the Solana CLI config %s (the config file sets neither)\n",
			strings.Join(cfg.FromSolanaCLI, " and "), cfg.SolanaCLIPath)
	}
	return cfg, nil
}

// apply sets what --url, --keypair and --commitment say on cfg.
func (c *configFlags) apply(cfg *config.Config) error {
	if c.url != "" {
		if !strings.Contains(c.url, "://") && config.ResolveURL(c.url) == c.url {
			return fmt.Errorf("-u %s is neither a URL nor a moniker (%s)", strictyaml.NameExcerpt(c.url), monikerList)
		}
		if err := cfg.SetRPC(c.url); err != nil {
			return fmt.Errorf("%w", err)
		}
	}
	if c.keypair != "" {
		if c.wallet != "" {
			return errors.New("choose one of --wallet and --keypair")
		}
		path, err := keypairPath(c.keypair)
		if err != nil {
			return fmt.Errorf("--keypair: %w", err)
		}
		cfg.Signer.Keypair, cfg.Signer.SecretEnv, cfg.Signer.SecretFile, cfg.Signer.PublicKey = path, "", "", ""
		cfg.FromSolanaCLI = slices.DeleteFunc(cfg.FromSolanaCLI, func(k string) bool { return k == "signer.keypair" })
	}
	switch c.commitment {
	case "":
	case "confirmed", "finalized":
		cfg.Chain.Commitment = c.commitment
	default:
		return fmt.Errorf("--commitment %s: want confirmed or finalized (a processed transaction may still be rolled back)", strictyaml.NameExcerpt(c.commitment))
	}
	return nil
}

// keypairPath is a --keypair path as the shell would not expand it: ~/
// is the home folder, and a relative path is from the working folder.
func keypairPath(p string) (string, error) {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		p = filepath.Join(home, rest)
	}
	return filepath.Abs(p)
}

// loadOrSay is load, saying on stderr what went wrong; ok is false then.
func (c *configFlags) loadOrSay(s *streams) (*config.Config, bool) {
	cfg, err := c.load(s)
	if err != nil {
		sayErr(s.err, err)
		return nil, false
	}
	return cfg, true
}

// withConfig is the body of a command that needs the config: it loads it,
// saying on stderr what went wrong (exit 2), and runs body with it.
func (c *configFlags) withConfig(body func(ctx context.Context, s *streams, cfg *config.Config, args []string) int) action {
	return func(ctx context.Context, s *streams, args []string) int {
		cfg, ok := c.loadOrSay(s)
		if !ok {
			return exitUsage
		}
		return body(ctx, s, cfg, args)
	}
}

// openJournal opens cfg's journal for the command name, saying on stderr
// why it cannot; ok is false then.
func openJournal(ctx context.Context, s *streams, name string, cfg *config.Config) (*journal.Journal, bool) {
	j, err := journal.Open(ctx, cfg.JournalDSN(), journal.Options{})
	if err != nil {
		fmt.Fprintf(s.err, "keeper %s: %v\n", name, err)
		return nil, false
	}
	return j, true
}

// openReadOnly loads the config and builds a keeper that reads and never
// signs (plan, wallet), saying on stderr what went wrong; ok is false then.
func (c *configFlags) openReadOnly(s *streams) (*keeper.Keeper, bool) {
	cfg, ok := c.loadOrSay(s)
	if !ok {
		return nil, false
	}
	logger, err := newLogger(s.err, "warn", cfg.Log.Format)
	if err != nil {
		sayErr(s.err, err)
		return nil, false
	}
	k, err := keeper.New(keeper.Options{Config: cfg, Logger: logger, Version: version(), ReadOnly: true})
	if err != nil {
		sayErr(s.err, err)
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintln(s.err, keyHint)
		}
		return nil, false
	}
	return k, true
}
