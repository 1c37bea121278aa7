package strictyaml

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is one problem at a position in a YAML file.
type Error struct {
	File   string // file name as given by the caller; may be empty
	Line   int    // 1-based line, 0 when unknown
	Column int    // 1-based column, 0 when unknown
	Msg    string
}

// Error formats the problem as file:line:col: msg, leaving out what is unknown.
func (e *Error) Error() string { return Prefix(e.File, e.Line, e.Column) + e.Msg }

// Prefix is the position part of a positioned message, "file:line:col: ",
// leaving out what is unknown (a line of 0, an empty file): "" when nothing
// is known.
func Prefix(file string, line, column int) string {
	var b strings.Builder
	if file != "" {
		b.WriteString(file)
		b.WriteByte(':')
	}
	if line > 0 {
		fmt.Fprintf(&b, "%d:%d:", line, column)
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	return b.String()
}

// At returns an Error positioned at node n (which may be nil).
func At(file string, n *yaml.Node, format string, args ...any) *Error {
	e := &Error{File: file, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

// Errors is a list of positioned problems, in the order they were found.
type Errors []*Error

// Error joins the problems, one per line.
func (es Errors) Error() string { return Lines(es) }

// Lines joins the messages of errs, one per line.
func Lines[E error](errs []E) string {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Each returns errs as a []error, for an Unwrap method.
func Each[E error](errs []E) []error {
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return out
}

// Err returns es as an error, or nil when it is empty.
func (es Errors) Err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}

// Unwrap exposes the single problems to errors.Is and errors.As.
func (es Errors) Unwrap() []error { return Each(es) }
