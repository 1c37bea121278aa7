package policies

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// Error is one problem in a policy file, at a position, naming the policy it
// belongs to when known.
type Error struct {
	File   string // file name as given to the parser
	Line   int    // 1-based line; 0 when unknown
	Column int    // 1-based column; 0 when unknown
	Policy string // policy name; empty for problems outside any policy
	Msg    string
}

// Error formats the problem as `file:line:col: policy "x": message`,
// leaving out the parts that are unknown.
func (e *Error) Error() string {
	prefix := strictyaml.Prefix(e.File, e.Line, e.Column)
	if e.Policy != "" {
		prefix += fmt.Sprintf("policy %q: ", e.Policy)
	}
	return prefix + e.Msg
}

// Errors is every problem found in a set of policy files, sorted by file,
// line and column.
type Errors []*Error

// Error joins the problems, one per line.
func (es Errors) Error() string { return strictyaml.Lines(es) }

// Unwrap exposes the single problems to errors.Is and errors.As.
func (es Errors) Unwrap() []error { return strictyaml.Each(es) }

// err returns es sorted as an error, or nil when it is empty.
func (es Errors) err() error {
	if len(es) == 0 {
		return nil
	}
	es.sort()
	return es
}

// sort orders es by file, line and column.
func (es Errors) sort() {
	slices.SortStableFunc(es, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
}

// reporter collects the problems of one file, positioned at YAML nodes.
type reporter struct {
	file string
	src  []byte
	errs Errors
}

// at records a problem at node n (nil: no position) for policy name.
func (r *reporter) at(n *yaml.Node, policy, format string, args ...any) {
	e := &Error{File: r.file, Policy: policy, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	r.errs = append(r.errs, e)
}

// atPos records a problem at an explicit position.
func (r *reporter) atPos(line, col int, policy, format string, args ...any) {
	r.errs = append(r.errs, &Error{File: r.file, Line: line, Column: col, Policy: policy, Msg: fmt.Sprintf(format, args...)})
}

// strict adopts the errors of a strictyaml decode for policy. A problem
// strictyaml places "at the top level" of a policy node is reworded to say
// "in the policy".
func (r *reporter) strict(errs strictyaml.Errors, policy string) {
	for _, se := range errs {
		msg := strings.Replace(se.Msg, "at the top level", "in the policy", 1)
		r.errs = append(r.errs, &Error{File: r.file, Line: se.Line, Column: se.Column, Policy: policy, Msg: msg})
	}
}

// fromStrict converts a positioned error from strictyaml (or any other
// error) into an *Error.
func fromStrict(file string, err error) *Error {
	if se, ok := err.(*strictyaml.Error); ok {
		return &Error{File: se.File, Line: se.Line, Column: se.Column, Msg: se.Msg}
	}
	return &Error{File: file, Msg: err.Error()}
}
