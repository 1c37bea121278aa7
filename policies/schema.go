package policies

import (
	"time"

	"gopkg.in/yaml.v3"
)

// Defaults of the optional policy fields.
const (
	DefaultMaxDataAge       = 5 * time.Minute
	DefaultMaxActionsPerRun = 5
	DefaultCooldown         = 10 * time.Minute
	DefaultMaxFeeLamports   = 100_000
)

// rawNode keeps a YAML node undecoded. strictyaml skips types that
// implement yaml.Unmarshaler, so kind-specific params are checked later,
// once the kind is known, against the kind's own struct.
type rawNode struct{ node *yaml.Node }

// UnmarshalYAML stores the node.
func (r *rawNode) UnmarshalYAML(n *yaml.Node) error {
	r.node = n
	return nil
}

// rawFile is the top level of a policy file: a mapping, so it can grow.
type rawFile struct {
	Policies []rawNode `yaml:"policies"`
}

// rawPolicy is one policy as written.
type rawPolicy struct {
	Name       string        `yaml:"name"`
	Kind       string        `yaml:"kind"`
	Schedule   string        `yaml:"schedule"`
	Jitter     time.Duration `yaml:"jitter"`
	Select     Select        `yaml:"select"`
	When       string        `yaml:"when"`
	For        time.Duration `yaml:"for"`
	Params     rawNode       `yaml:"params"`
	MaxDataAge time.Duration `yaml:"max_data_age"`
	Limits     Limits        `yaml:"limits"`
	Submit     Submit        `yaml:"submit"`
	Notify     Notify        `yaml:"notify"`
	DryRun     bool          `yaml:"dry_run"`
	Enabled    *bool         `yaml:"enabled"`
	Triggers   Triggers      `yaml:"triggers"`
}

// defaultPolicy returns a rawPolicy holding the defaults that do not depend
// on the kind.
func defaultPolicy() rawPolicy {
	return rawPolicy{
		MaxDataAge: DefaultMaxDataAge,
		Limits:     Limits{MaxActionsPerRun: DefaultMaxActionsPerRun, Cooldown: DefaultCooldown},
		Submit:     Submit{MaxFeeLamports: DefaultMaxFeeLamports},
	}
}

// defaultRent returns the rent allowance of an action of kind k: a new
// position (position NFT mint, its token account and the position account)
// for rebalance, two associated token accounts for claim-fees, one for
// claim-withdrawals and strategy-withdraw. An associated token account holds 2039280 lamports.
func defaultRent(k Kind) uint64 {
	switch k {
	case KindRebalance:
		return 15_000_000
	case KindClaimFees:
		return 4_100_000
	case KindClaimWithdrawals, KindStrategyWithdraw:
		// One token account: the claim or the withdrawal pays into the
		// wallet's account of the mint, which the answer creates when the
		// wallet has none.
		return 2_100_000
	}
	return 0
}
