package keeper

import (
	"context"

	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/tokens"
	"github.com/keeper-project/keeper/policies"
)

// LoadPolicies reads the policy files the config names and checks that the
// notifiers they name exist.
func LoadPolicies(dir string, globs []string, notifiers []string) ([]*policies.Policy, error) {
	ps, err := policies.LoadFiles(dir, globs)
	if err != nil {
		return nil, err
	}
	if err := policies.CheckNotifiers(ps, notifiers); err != nil {
		return nil, err
	}
	return ps, nil
}

// policySource loads the policies the config names, at start and on each
// reload.
type policySource struct {
	cfg *config.Config
	// tokens describes the mints amounts written with a unit name (nil
	// when the chain cannot be read).
	tokens *tokens.Book
}

// load reads the policy files.
func (s policySource) load() ([]*policies.Policy, error) {
	names := make([]string, len(s.cfg.Notifiers))
	for i, n := range s.cfg.Notifiers {
		names[i] = n.Name
	}
	return LoadPolicies(s.cfg.Dir, s.cfg.Policies, names)
}

// loadChecked loads the policies and checks their amounts written with a
// unit against the mints they name. A definite mismatch (another token's
// symbol, too many decimals) refuses them, as `check --online` would; a
// mint the chain could not describe now is left to the runs, which resolve
// amounts per target and fail closed.
func (s policySource) loadChecked(ctx context.Context) ([]*policies.Policy, error) {
	ps, err := s.load()
	if err != nil {
		return nil, err
	}
	if err := CheckPrograms(s.cfg, ps); err != nil {
		return nil, err
	}
	if err := CheckTriggers(s.cfg, ps); err != nil {
		return nil, err
	}
	if err := checkAmounts(ctx, ps, s.cfg.Tokens, s.tokens, false); err != nil {
		return nil, err
	}
	return ps, nil
}
