package policies

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// maxExprNodes bounds the size of one expression.
const maxExprNodes = 1000

// exprError is a compile error at a position inside the expression.
type exprError struct {
	line, col int // 1-based line, 0-based rune column, as expr reports them
	msg       string
}

// compileExpr compiles src against env, requiring a result of kind want
// (reflect.Bool or reflect.Float64). Builtins that read the clock or the
// time-zone database are disabled, so evaluation stays pure.
func compileExpr(src string, env any, want reflect.Kind) (*vm.Program, *exprError) {
	opts := []expr.Option{
		expr.Env(env),
		expr.MaxNodes(maxExprNodes),
		expr.DisableBuiltin("now"),
		expr.DisableBuiltin("date"),
		expr.DisableBuiltin("timezone"),
	}
	switch want {
	case reflect.Bool:
		opts = append(opts, expr.AsBool())
	case reflect.Float64:
		opts = append(opts, expr.AsFloat64())
	}
	prog, err := expr.Compile(src, opts...)
	if err == nil {
		return prog, nil
	}
	var fe *file.Error
	if errors.As(err, &fe) && fe.Line > 0 {
		return nil, &exprError{line: fe.Line, col: fe.Column, msg: explain(fe.Message, env)}
	}
	return nil, &exprError{line: 1, col: 0, msg: explain(err.Error(), env)}
}

var (
	noFieldRE     = regexp.MustCompile(`^type (?:\*?[\w]+\.)?(\w+) has no field (\w+)$`)
	unknownNameRE = regexp.MustCompile(`^unknown name (\w+)$`)
)

// explain rewords the compiler's messages about unknown names, suggesting
// the closest known one.
func explain(msg string, env any) string {
	if m := noFieldRE.FindStringSubmatch(msg); m != nil {
		if t, ok := factTypes[m[1]]; ok {
			return unknownName(fmt.Sprintf("%s has no field", m[1]), m[2], exprNames(t))
		}
	}
	if m := unknownNameRE.FindStringSubmatch(msg); m != nil {
		return unknownName("unknown name", m[1], exprNames(reflect.TypeOf(env)))
	}
	return msg
}

// unknownName formats an unknown-name message with a suggestion or the
// list of known names.
func unknownName(prefix, name string, known []string) string {
	if best := strictyaml.Closest(name, known); best != "" {
		return fmt.Sprintf("%s %q (did you mean %q?)", prefix, name, best)
	}
	known = slices.Clone(known)
	slices.Sort(known)
	return fmt.Sprintf("%s %q (known: %s)", prefix, name, strings.Join(known, ", "))
}

// compileAt compiles the expression held by scalar n and reports a compile
// error at its position in the file, for policy, naming what the expression
// is for.
func (r *reporter) compileAt(n *yaml.Node, policy, what string, env any, want reflect.Kind) *vm.Program {
	prog, e := compileExpr(n.Value, env, want)
	if e != nil {
		line, col := exprPosition(r.src, n, e.line, e.col)
		r.atPos(line, col, policy, "%s: %s", what, e.msg)
	}
	return prog
}

// exprPosition maps a position inside an expression (line 1-based, column
// 0-based in runes, as the expression compiler reports it) to the file
// position of the YAML scalar n that holds the expression. Plain and quoted
// scalars fold their lines into one with single spaces; literal blocks (|)
// keep them; folded blocks (>) fold them. Escapes in double-quoted scalars
// are not accounted for.
func exprPosition(src []byte, n *yaml.Node, line, col int) (int, int) {
	lines := strings.Split(string(src), "\n")
	if n.Line < 1 || n.Line > len(lines) {
		return n.Line, n.Column
	}
	off := valueOffset(n.Value, line, col)
	switch {
	case n.Style&yaml.LiteralStyle != 0:
		return literalPosition(lines, n, line, col)
	case n.Style&yaml.FoldedStyle != 0:
		return foldedPosition(lines, n.Line, 0, off)
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		return foldedPosition(lines, n.Line-1, n.Column+1, off)
	default:
		return foldedPosition(lines, n.Line-1, n.Column, off)
	}
}

// valueOffset returns the rune offset in v of column col of line line.
func valueOffset(v string, line, col int) int {
	off := 0
	for i := 1; i < line; i++ {
		nl := strings.IndexByte(v, '\n')
		if nl < 0 {
			break
		}
		off += utf8.RuneCountInString(v[:nl]) + 1
		v = v[nl+1:]
	}
	return off + col
}

// literalPosition maps a position in a literal block scalar: its lines are
// the source lines after the indicator, less their common indentation.
func literalPosition(lines []string, n *yaml.Node, line, col int) (int, int) {
	indent := 0
	for _, l := range lines[n.Line:] {
		if strings.TrimSpace(l) != "" {
			indent = len(l) - len(strings.TrimLeft(l, " "))
			break
		}
	}
	return n.Line + line, indent + col + 1
}

// foldedPosition maps rune offset off of a folded value whose text starts
// on 0-based source line first at 1-based column startCol (0: at the line's
// indentation). Each source line contributes its trimmed text plus one
// joining space.
func foldedPosition(lines []string, first, startCol, off int) (int, int) {
	for i := first; i < len(lines); i++ {
		l := []rune(lines[i])
		begin := len(l) - len([]rune(strings.TrimLeft(lines[i], " ")))
		if i == first && startCol > 0 {
			begin = min(startCol-1, len(l))
		}
		seg := len([]rune(strings.TrimRight(string(l[begin:]), " \r")))
		if off <= seg || i == len(lines)-1 {
			return i + 1, begin + off + 1
		}
		off -= seg + 1
	}
	return first + 1, startCol
}
