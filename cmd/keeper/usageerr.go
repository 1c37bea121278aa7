package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// unknownName says that name is not one of known (commands, reports,
// monikers), suggesting the closest one when it is a likely typo.
func unknownName(what, name string, known []string) string {
	msg := fmt.Sprintf("unknown %s %s", what, strictyaml.NameExcerpt(name))
	if best := strictyaml.Closest(name, known); best != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", best)
	}
	return msg
}

// commandNames are the names `keeper <command>` takes.
func commandNames() []string {
	names := []string{"help"}
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

// flagProblem rewrites the flag package's parse error err in the user's
// spelling: the flag as given in args (--bogus, not -bogus), and for an
// unknown flag the closest flag of fs. A value after "=" is never quoted.
func flagProblem(err error, args []string, fs *flag.FlagSet) string {
	msg := err.Error()
	name, ok := flagInError(msg)
	if !ok {
		return msg
	}
	given := givenSpelling(name, args)
	if strings.HasPrefix(msg, "flag provided but not defined:") {
		var known []string
		fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
		out := "unknown flag " + strictyaml.NameExcerpt(given)
		if best := strictyaml.Closest(name, known); best != "" {
			out += fmt.Sprintf(" (did you mean %s?)", flagName(best))
		}
		return out
	}
	return strings.Replace(msg, " -"+name, " "+given, 1)
}

// flagInError finds the flag name the flag package's message names as
// -name: after "defined: ", "argument: " or "flag ".
func flagInError(msg string) (string, bool) {
	for _, marker := range []string{"not defined: -", "needs an argument: -", "for flag -", "for -"} {
		if _, rest, ok := strings.Cut(msg, marker); ok {
			name, _, _ := strings.Cut(rest, ":")
			return name, name != ""
		}
	}
	return "", false
}

// givenSpelling is how args wrote the flag name: -name or --name (without
// a value); -name when args do not hold it.
func givenSpelling(name string, args []string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		bare, _, _ := strings.Cut(a, "=")
		if bare == "-"+name || bare == "--"+name {
			return bare
		}
	}
	return "-" + name
}

// sayErr prints err on w, as "keeper: err" unless it already names keeper
// or starts with a position ("file:line:col: ...", which editors and
// scripts read at the start of a line).
func sayErr(w io.Writer, err error) {
	msg := err.Error()
	if strings.HasPrefix(msg, "keeper") || positioned.MatchString(msg) {
		fmt.Fprintln(w, msg)
		return
	}
	fmt.Fprintln(w, "keeper: "+msg)
}

// positioned matches a message that starts with file:line:col.
var positioned = regexp.MustCompile(`^[^\s:]+:\d+:\d+: `)
