package policies

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
)

// Cleared is an alert target whose incident is open (State.Open) and that
// the evaluation found no longer firing: what a resolution says.
type Cleared struct {
	Target string
	// Value is what the facts that `when` reads are now, from the
	// observation that found the condition cleared ("loan.health 0.3102");
	// empty when the target is Gone or `when` reads no single fact.
	Value string
	// Gone reports a target the evaluation no longer found among the
	// policy's targets (a loan repaid and closed, a request claimed, a
	// target the policy no longer selects).
	Gone bool
}

// clear records target, whose condition does not hold on env, as Cleared
// when its incident is open.
func (e *evaluator) clear(target string, env any) {
	if !e.gate.state.open(target) {
		return
	}
	e.res.Cleared = append(e.res.Cleared, Cleared{Target: target, Value: e.p.whenValues(env)})
}

// clearGone records as Cleared (Gone) every open incident's target that an
// evaluation of every target did not come to: neither an action, a skip
// nor a cleared condition.
func (e *evaluator) clearGone() {
	if e.p.Kind != KindAlert || e.scope != nil || e.gate.state == nil || len(e.gate.state.Open) == 0 {
		return
	}
	seen := map[string]bool{}
	for _, a := range e.res.Actions {
		seen[a.Target] = true
	}
	for _, s := range e.res.Skipped {
		seen[s.Target] = true
	}
	for _, c := range e.res.Cleared {
		seen[c.Target] = true
	}
	for _, target := range slices.Sorted(maps.Keys(e.gate.state.Open)) {
		if e.gate.state.Open[target] && !seen[target] {
			e.res.Cleared = append(e.res.Cleared, Cleared{Target: target, Gone: true})
		}
	}
}

// open reports whether target's incident is open (false for a nil state).
func (s *State) open(target string) bool { return s != nil && s.Open[target] }

// whenValues writes the facts `when` reads, each as its expression and its
// value on env, in the order they first appear: "loan.health 0.3102,
// loan.ltv 0.61". Lists and the facts inside closures (any(...)) are left
// out: one value each says what the condition saw.
func (p *Policy) whenValues(env any) string {
	facts, _ := factsMap(env).(map[string]any)
	var out []string
	for _, path := range p.whenFacts {
		group, _ := facts[path[0]].(map[string]any)
		if text, ok := scalarText(group[path[1]]); ok {
			out = append(out, path[0]+"."+path[1]+" "+text)
		}
	}
	return strings.Join(out, ", ")
}

// scalarText writes a fact's value, or false for a list, a map or nothing.
func scalarText(v any) (string, bool) {
	switch v := v.(type) {
	case float64:
		return formatRatio(v), true
	case string:
		return shortKey(v), true
	case bool, int, int64, uint64:
		return fmt.Sprint(v), true
	}
	return "", false
}

// whenFacts lists the facts prog reads as group.name ("loan", "health"),
// each once, in the order they first appear.
func whenFacts(prog *vm.Program) [][2]string {
	if prog == nil {
		return nil
	}
	f := &factFinder{}
	root := prog.Node()
	ast.Walk(&root, f)
	return f.facts
}

// factFinder collects the member expressions on a top-level name
// (loan.health), leaving out those inside closures (.health).
type factFinder struct{ facts [][2]string }

// Visit notes a fact read.
func (f *factFinder) Visit(n *ast.Node) {
	m, ok := (*n).(*ast.MemberNode)
	if !ok {
		return
	}
	group, ok1 := m.Node.(*ast.IdentifierNode)
	name, ok2 := m.Property.(*ast.StringNode)
	if !ok1 || !ok2 {
		return
	}
	fact := [2]string{group.Value, name.Value}
	if !slices.Contains(f.facts, fact) {
		f.facts = append(f.facts, fact)
	}
}
