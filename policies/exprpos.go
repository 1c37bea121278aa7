package policies

import (
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

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
