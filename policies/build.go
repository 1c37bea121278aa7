package policies

import (
	"reflect"
	"regexp"
	"slices"
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
	p := defaultPolicy(b.r.file, b.node)
	kind := b.kind()
	out, params := decodeTarget(p, kind)
	errs, decoded := strictyaml.DecodeAll(b.r.file, b.node, out, strictyaml.Options{})
	if len(errs) > 0 {
		b.r.strict(errs, b.name)
	}
	if !decoded || p.Kind != kind {
		return nil // a kind from a merge key (<<) is reported as an unknown field
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
		p.Params = b.checkParams(p, params)
		p.Submit.check(b, p.Kind)
		p.Notify.check(b, p)
		p.Authority.check(b, p.Kind)
	}
	if len(b.r.errs) > before {
		return nil
	}
	p.warnings = b.warnings(p)
	p.checked = true
	return p
}

// cronFrom is where a schedule is asked for its next run to find one that
// never fires: robfig/cron looks five years ahead, which holds a 29
// February.
var cronFrom = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// warnings returns what checked policy p accepts but cannot work as
// written.
func (b *builder) warnings(p *Policy) Errors {
	w := &reporter{file: b.r.file}
	if p.cron.Next(cronFrom).IsZero() {
		runs := "it never runs"
		if p.Triggers.Any() {
			runs = "it runs on its triggers only"
		}
		w.at(strictyaml.Find(b.node, "schedule"), p.Name, "schedule %q names no date that exists: %s", p.Schedule, runs)
	}
	if spent := p.Select.PrincipalMints; p.Kind == KindRepay && len(spent) > 0 {
		caps := strictyaml.Find(b.node, "limits", "daily_caps")
		unspent := 0
		for mint := range p.Limits.DailyCaps {
			if !slices.Contains(spent, mint) {
				unspent++
				w.at(strictyaml.FindKey(caps, mint), p.Name, "limits.daily_caps: the policy never spends %s (not in select.principal_mints): this cap never applies", mint)
			}
		}
		if unspent > 0 && unspent == len(p.Limits.DailyCaps) {
			at := strictyaml.FindKey(strictyaml.Find(b.node, "limits"), "daily_caps")
			w.at(at, p.Name, "limits.daily_caps: no cap is on a mint the policy spends: its repayments are uncapped")
		}
	}
	w.errs.sort()
	return w.errs
}

// kind returns the kind the policy's node names, before it is decoded,
// so that its params decode into the kind's type: "" when it names none.
func (b *builder) kind() Kind {
	n := strictyaml.Find(b.node, "kind")
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == b.node || n.Kind != yaml.ScalarNode {
		return ""
	}
	return Kind(n.Value)
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
	p.whenFacts = whenFacts(p.when)
	for _, name := range mayBeUnknown {
		if uses(p.when, name) {
			if p.whenReads == nil {
				p.whenReads = map[string]bool{}
			}
			p.whenReads[name] = true
		}
	}
}

// Defaults of the optional policy fields.
const (
	DefaultMaxDataAge       = 5 * time.Minute
	DefaultMaxActionsPerRun = 5
	DefaultCooldown         = 10 * time.Minute
	DefaultMaxFeeLamports   = 100_000
)

// policyNode keeps a policy's node for the builder, which decodes it once
// its kind is known: strictyaml leaves a yaml.Unmarshaler to itself.
type policyNode struct{ node *yaml.Node }

// UnmarshalYAML stores the node.
func (r *policyNode) UnmarshalYAML(n *yaml.Node) error {
	r.node = n
	return nil
}

// fileShape is the top level of a policy file: a mapping, so it can grow.
type fileShape struct {
	Policies []policyNode `yaml:"policies"`
}

// document is what a policy's node decodes into, in one pass: the policy
// itself and the params of its kind (P).
type document[P any] struct {
	*Policy `yaml:",inline"`
	Params  P `yaml:"params"`
}

// unchecked stands for the params of a missing or unknown kind, which no
// type describes: they are left undecoded (strictyaml skips a
// yaml.Unmarshaler) and the kind's error is reported instead.
type unchecked struct{}

// UnmarshalYAML leaves the params undecoded.
func (unchecked) UnmarshalYAML(*yaml.Node) error { return nil }

// decodeTarget returns what a policy of kind k decodes into, p and the
// params of k with their defaults, and those params (nil for an unknown
// kind).
func decodeTarget(p *Policy, k Kind) (any, paramsChecker) {
	switch k {
	case KindRepay:
		return withParams(p, &RepayParams{})
	case KindRebalance:
		return withParams(p, &RebalanceParams{})
	case KindClaimFees:
		return withParams(p, &ClaimFeesParams{})
	case KindClaimWithdrawals:
		return withParams(p, &ClaimWithdrawalsParams{})
	case KindStrategyUpdate:
		return withParams(p, &StrategyUpdateParams{})
	case KindStrategyWithdraw:
		return withParams(p, &StrategyWithdrawParams{})
	case KindAlert:
		return withParams(p, &AlertParams{Severity: SeverityWarning})
	}
	return &document[unchecked]{Policy: p}, nil
}

// withParams is the decode target of p with params P. Decoding fills the
// params in place (a null node leaves them as they are: defaults).
func withParams[P paramsChecker](p *Policy, params P) (any, paramsChecker) {
	return &document[P]{Policy: p, Params: params}, params
}

// defaultPolicy returns a policy of file at node holding the defaults that
// do not depend on the kind.
func defaultPolicy(file string, node *yaml.Node) *Policy {
	return &Policy{
		File: file, Line: node.Line, Column: node.Column, Enabled: true,
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
