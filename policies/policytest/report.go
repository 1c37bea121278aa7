package policytest

import (
	"fmt"
	"io"
	"strings"
)

// Write prints the report: per file, each test as PASS or FAIL with its
// problems, then a summary line.
func (r *Report) Write(w io.Writer) error {
	var b strings.Builder
	for _, f := range r.Files {
		fmt.Fprintf(&b, "%s\n", f.File)
		if f.Err != nil {
			fmt.Fprintf(&b, "  ERROR loading the tests:\n    %s\n", strings.ReplaceAll(f.Err.Error(), "\n", "\n    "))
			continue
		}
		for _, t := range f.Tests {
			if t.Passed {
				fmt.Fprintf(&b, "  PASS %s\n", t.Name)
				continue
			}
			fmt.Fprintf(&b, "  FAIL %s (%s:%d:%d)\n", t.Name, f.File, t.Line, t.Column)
			for _, p := range t.Problems {
				fmt.Fprintf(&b, "    %s\n", strings.ReplaceAll(p, "\n", "\n    "))
			}
		}
	}
	passed, failed, broken := r.Counts()
	fmt.Fprintf(&b, "%d passed, %d failed", passed, failed)
	switch {
	case broken == 1:
		b.WriteString(", 1 file could not be loaded")
	case broken > 1:
		fmt.Fprintf(&b, ", %d files could not be loaded", broken)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
