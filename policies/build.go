package policies

import (
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// builder turns one policy node into a *Policy, reporting every problem.
type builder struct {
	r    *reporter
	node *yaml.Node // the policy's mapping
	name string     // the policy's name, as far as it is known
}

// fail reports a problem at the node at path (or the nearest existing one).
func (b *builder) fail(path []any, format string, args ...any) {
	b.r.at(strictyaml.Find(b.node, path...), b.name, format, args...)
}

// has reports whether the policy sets the value at path.
func (b *builder) has(path ...any) bool {
	n := b.node
	for _, p := range path {
		next := strictyaml.Find(n, p)
		if next == n {
			return false
		}
		n = next
	}
	return true
}

// build decodes and checks the policy; nil when it has problems.
func (b *builder) build() *Policy {
	before := len(b.r.errs)
	if b.node.Kind != yaml.MappingNode {
		b.r.at(b.node, "", "a policy must be a mapping, got %s", strictyaml.Shape(b.node, "a scalar"))
		return nil
	}
	raw := defaultPolicy()
	errs, decoded := strictyaml.DecodeAll(b.r.file, b.node, &raw, strictyaml.Options{})
	if len(errs) > 0 {
		b.r.strict(errs, b.name)
	}
	if !decoded {
		b.decodeParamsOnly()
		return nil
	}
	p := &Policy{
		Name: raw.Name, Kind: Kind(raw.Kind), File: b.r.file, Line: b.node.Line, Column: b.node.Column,
		Schedule: raw.Schedule, Jitter: raw.Jitter, Select: raw.Select, When: raw.When, For: raw.For,
		MaxDataAge: raw.MaxDataAge, Limits: raw.Limits, Submit: raw.Submit, Notify: raw.Notify,
		DryRun: raw.DryRun, Enabled: raw.Enabled == nil || *raw.Enabled, Triggers: raw.Triggers,
		Authority: raw.Authority,
	}
	b.checkName(p)
	b.checkSchedule(p)
	b.checkDurations(p)
	p.Limits.check(b)
	p.Triggers.check(b)
	if p.Kind.check(b) {
		if p.Select.check(b, p) {
			b.compileWhen(p)
		}
		p.Params = b.params(p, raw.Params.node)
		p.Submit.check(b, p.Kind)
		p.Notify.check(b, p)
		p.Authority.check(b, p.Kind)
	}
	if len(b.r.errs) > before {
		return nil
	}
	p.checked = true
	return p
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)

func (b *builder) checkName(p *Policy) {
	switch {
	case !b.has("name"):
		b.fail(nil, "name is required")
	case !nameRE.MatchString(p.Name):
		b.fail([]any{"name"}, "name %q must be 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit", p.Name)
	}
}

// check reports a missing or unknown kind; false then.
func (k Kind) check(b *builder) bool {
	if !b.has("kind") {
		b.fail(nil, "kind is required (one of %s)", kindList())
		return false
	}
	if !k.Valid() {
		b.fail([]any{"kind"}, "unknown kind %q (one of %s)", k, kindList())
		return false
	}
	return true
}

func kindList() string {
	s := make([]string, len(Kinds))
	for i, k := range Kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// checkSchedule validates the cron spec. Time-zone prefixes are refused:
// schedules run in UTC, and loading a zone would read the zone database.
func (b *builder) checkSchedule(p *Policy) {
	if !b.has("schedule") {
		b.fail(nil, "schedule is required (a 5-field cron spec, or @hourly, @every 30s, ...)")
		return
	}
	spec := strings.TrimSpace(p.Schedule)
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		b.fail([]any{"schedule"}, "schedule: time zones are not supported: schedules run in UTC")
		return
	}
	if every, ok := strings.CutPrefix(spec, "@every "); ok {
		if d, err := time.ParseDuration(strings.TrimSpace(every)); err == nil && d < time.Second {
			b.fail([]any{"schedule"}, "schedule %q: the interval must be at least 1s, got %s", p.Schedule, d)
			return
		}
	}
	s, err := cron.ParseStandard(spec)
	if err != nil {
		b.fail([]any{"schedule"}, "schedule %q: %v", p.Schedule, err)
		return
	}
	p.cron = s
}

func (b *builder) checkDurations(p *Policy) {
	if p.Jitter < 0 {
		b.fail([]any{"jitter"}, "jitter must not be negative, got %s", p.Jitter)
	}
	if p.For < 0 {
		b.fail([]any{"for"}, "for must not be negative, got %s", p.For)
	}
	if p.MaxDataAge <= 0 {
		b.fail([]any{"max_data_age"}, "max_data_age must be positive, got %s", p.MaxDataAge)
	}
}

// compileWhen compiles the policy's condition against its target's facts.
func (b *builder) compileWhen(p *Policy) {
	if !b.has("when") {
		if p.Kind == KindAlert {
			b.fail(nil, "when is required for an alert")
		}
		return
	}
	n := strictyaml.Find(b.node, "when")
	if strings.TrimSpace(p.When) == "" {
		b.r.at(n, b.name, "when must not be empty (leave it out instead)")
		return
	}
	p.when = b.r.compileAt(n, b.name, "when", envFor(p.Target()), reflect.Bool)
	for _, name := range mayBeUnknown {
		if uses(p.when, name) {
			if p.whenReads == nil {
				p.whenReads = map[string]bool{}
			}
			p.whenReads[name] = true
		}
	}
}

// decodeParamsOnly reports the params' own decoding problems when the rest
// of the policy failed to decode, so every problem shows at once.
func (b *builder) decodeParamsOnly() {
	k, params := strictyaml.Find(b.node, "kind"), strictyaml.Find(b.node, "params")
	if k == b.node || params == b.node || !Kind(k.Value).Valid() {
		return
	}
	if out := newParams(Kind(k.Value)); out != nil {
		b.decodeParams(params, out)
	}
}

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
	Authority  Authority     `yaml:"authority"`
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
