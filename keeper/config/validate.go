package config

import (
	"errors"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// ActionKinds lists the action kinds whose program allowlists
// signer.extra_programs may extend.
var ActionKinds = []string{"repay", "rebalance", "claim-fees", "claim-withdrawals", "strategy-update", "strategy-withdraw", "tip"}

// validator collects semantic problems, each positioned at the YAML node
// that holds the offending value (or the nearest one when it was omitted).
// Each section of the config checks itself against it (validate_sections.go,
// validate_notifier.go) through the value rules of validate_rules.go.
type validator struct {
	file string
	root *yaml.Node
	dir  string
	errs strictyaml.Errors
	// quiet skips the notifiers' URLs: the command sends nothing.
	quiet bool
	// fromCLI are the keys taken from the Solana CLI's config.
	fromCLI []string
	// inlinePIN: the file writes signer.pkcs11.pin as a value, not ${NAME}.
	inlinePIN bool
}

// fail records a problem at the node the path leads to.
func (v *validator) fail(path []any, format string, args ...any) {
	v.errs = append(v.errs, strictyaml.At(v.file, strictyaml.Find(v.root, path...), format, args...))
}

// written reports whether the config file itself sets the key at path.
func (v *validator) written(path ...string) bool {
	n := v.root
	for _, key := range path {
		if strictyaml.FindKey(n, key) == n {
			return false
		}
		n = strictyaml.Find(n, key)
	}
	return true
}

// readSecretFile reads a secret from the file p (relative to the config's
// folder), failing at path when it cannot be read or is empty.
func (v *validator) readSecretFile(path []any, p string) string {
	data, err := os.ReadFile(resolvePath(v.dir, p))
	if err != nil {
		v.fail(path, "cannot read secret file %s: %v", p, errorWithoutContent(err))
		return ""
	}
	s := strings.TrimSpace(string(data))
	if s == "" {
		v.fail(path, "secret file %s is empty", p)
	}
	return s
}

// errorWithoutContent keeps only the operation's failure, never file content.
func errorWithoutContent(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// validate checks every section of c, filling the defaults that depend on
// other keys and resolving paths against the config's folder.
func (c *Config) validate(v *validator) {
	c.Market.validate(v)
	c.Chain.validate(v)
	c.Signer.validate(v)
	c.Journal.validate(v)
	c.HTTP.validate(v)
	if len(c.Policies) == 0 {
		v.fail([]any{"policies"}, "policies: at least one policy file glob is required")
	}
	for i, g := range c.Policies {
		if g == "" {
			v.fail([]any{"policies", i}, "policies: empty glob")
		}
	}
	c.Log.validate(v)
	if c.PolicyConcurrency < 1 || c.PolicyConcurrency > 256 {
		v.fail([]any{"policy_concurrency"}, "policy_concurrency must be from 1 to 256, got %d", c.PolicyConcurrency)
	}
	if c.ActionConcurrency < 1 || c.ActionConcurrency > 64 {
		v.fail([]any{"action_concurrency"}, "action_concurrency must be from 1 to 64, got %d", c.ActionConcurrency)
	}
	c.KillSwitch = resolvePath(v.dir, c.KillSwitch)
	for mint, t := range c.Tokens {
		v.pubkey([]any{"tokens"}, "tokens", mint, true)
		if t.Symbol == "" || t.Decimals > 18 {
			v.fail([]any{"tokens", mint}, "tokens.%s needs a symbol and decimals from 0 to 18", mint)
		}
	}
	c.Prices.validate(v)
	c.Swap.validate(v)
	c.explorerDefaults = c.Explorer.Name == "" && c.Explorer.Cluster == ""
	c.Explorer.validate(v, c.Chain.RPCURL)
	for i := range c.Notifiers {
		if v.quiet {
			c.Notifiers[i].URL, c.Notifiers[i].URLFile = "", "" // named for the policies, never sent to
			continue
		}
		c.Notifiers[i].validate(v, i)
	}
}

// solanaCLI takes chain.rpc_url and signer.keypair from the Solana CLI's
// config file when the config file sets neither the key nor (for the
// keypair) another key source, as the Solana tools do.
func (v *validator) solanaCLI(c *Config, lookupEnv func(string) (string, bool)) {
	needRPC := !v.written("chain", "rpc_url")
	needKey := !v.written("signer", "keypair") && !v.written("signer", "secret_env") && !v.written("signer", "secret_file") &&
		!v.written("signer", "pubkey") && !v.written("signer", "pkcs11")
	if !needRPC && !needKey {
		return
	}
	cli, err := readSolanaCLI(solanaCLIPath(lookupEnv))
	if err != nil {
		v.fail([]any{}, "%v", err)
		return
	}
	if cli == nil {
		return
	}
	if needRPC && cli.RPCURL != "" {
		c.Chain.RPCURL = URL(cli.RPCURL)
		c.FromSolanaCLI = append(c.FromSolanaCLI, "chain.rpc_url")
	}
	if needKey && cli.Keypair != "" {
		c.Signer.Keypair = cli.Keypair
		c.FromSolanaCLI = append(c.FromSolanaCLI, "signer.keypair")
	}
	if len(c.FromSolanaCLI) > 0 {
		c.SolanaCLIPath = cli.Path
	}
	v.fromCLI = c.FromSolanaCLI
}

// usesCLIKeypair reports whether signer.keypair came from the Solana CLI's config.
func (v *validator) usesCLIKeypair() bool { return slices.Contains(v.fromCLI, "signer.keypair") }
