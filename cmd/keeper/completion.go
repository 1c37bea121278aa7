package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// printCompletion is `keeper completion SHELL`.
func printCompletion(_ context.Context, s *streams, args []string) int {
	switch args[0] {
	case "bash":
		writeBash(s.out)
	case "zsh":
		fmt.Fprintln(s.out, "#compdef keeper\nautoload -U bashcompinit && bashcompinit")
		writeBash(s.out)
	case "fish":
		writeFish(s.out)
	default:
		fmt.Fprintf(s.err, "keeper completion: unknown shell %q (bash, zsh or fish)\n", args[0])
		return exitUsage
	}
	return exitOK
}

// flagWords are a command's flags as typed on a command line.
func flagWords(c command) []string {
	var out []string
	for _, f := range c.flagsOf() {
		out = append(out, flagName(f.Name))
	}
	return out
}

// writeBash writes a bash completion function (zsh runs it through
// bashcompinit): commands first, then the flags of the command typed.
func writeBash(w io.Writer) {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	fmt.Fprintln(w, "# keeper completion for bash: source it, or put it in /etc/bash_completion.d/keeper")
	fmt.Fprintln(w, "_keeper() {")
	fmt.Fprintln(w, `  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"`)
	fmt.Fprintln(w, `  if [ "$COMP_CWORD" -eq 1 ]; then`)
	fmt.Fprintf(w, "    COMPREPLY=( $(compgen -W %q -- \"$cur\") )\n    return\n  fi\n", strings.Join(append(names, "help"), " "))
	fmt.Fprintln(w, `  case "$prev" in`)
	for _, v := range flagValues {
		fmt.Fprintf(w, "    %s) COMPREPLY=( $(compgen -W %q -- \"$cur\") ); return ;;\n", strings.Join(v.flags, "|"), strings.Join(v.words, " "))
	}
	fmt.Fprintln(w, "  esac")
	fmt.Fprintln(w, `  case "$COMP_CWORD ${COMP_WORDS[1]}" in`)
	for _, c := range commands() {
		if len(c.choices) > 0 {
			fmt.Fprintf(w, "    \"2 %s\") COMPREPLY=( $(compgen -W %q -- \"$cur\") ); return ;;\n", c.name, strings.Join(c.choices, " "))
		}
	}
	fmt.Fprintln(w, "  esac")
	fmt.Fprintln(w, `  case "${COMP_WORDS[1]}" in`)
	for _, c := range commands() {
		fmt.Fprintf(w, "    %s) COMPREPLY=( $(compgen -W %q -- \"$cur\") ) ;;\n", c.name, strings.Join(flagWords(c), " "))
	}
	fmt.Fprintln(w, "  esac")
	fmt.Fprintln(w, `  case "$cur" in -*) ;; *) COMPREPLY+=( $(compgen -f -- "$cur") ) ;; esac`)
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w, "complete -F _keeper keeper")
}

// writeFish writes fish completions: each command, then each command's
// flags with their help.
func writeFish(w io.Writer) {
	fmt.Fprintln(w, "# keeper completion for fish: save as ~/.config/fish/completions/keeper.fish")
	fmt.Fprintln(w, "complete -c keeper -f")
	for _, c := range commands() {
		fmt.Fprintf(w, "complete -c keeper -n __fish_use_subcommand -a %s -d %q\n", c.name, firstSentence(c.summary))
		if len(c.choices) > 0 {
			fmt.Fprintf(w, "complete -c keeper -n '__fish_seen_subcommand_from %s' -a %q\n", c.name, strings.Join(c.choices, " "))
		}
		for _, f := range c.flagsOf() {
			opt := "-l " + f.Name
			if len(f.Name) == 1 {
				opt = "-s " + f.Name
			}
			if words := valuesOf(f.Name); len(words) > 0 {
				opt += fmt.Sprintf(" -x -a %q", strings.Join(words, " "))
			}
			_, usage := flag.UnquoteUsage(f)
			fmt.Fprintf(w, "complete -c keeper -n '__fish_seen_subcommand_from %s' %s -d %q\n", c.name, opt, firstSentence(usage))
		}
	}
}

// flagValues are the values completion offers after a flag.
var flagValues = []struct{ flags, words []string }{
	{[]string{"-u", "--url"}, []string{"mainnet-beta", "devnet", "testnet", "localhost"}},
	{[]string{"--commitment"}, []string{"confirmed", "finalized"}},
}

// valuesOf is what completion offers after the flag name, or nil.
func valuesOf(name string) []string {
	for _, v := range flagValues {
		if slices.Contains(v.flags, flagName(name)) {
			return v.words
		}
	}
	return nil
}

// firstSentence shortens a help text for a completion menu.
func firstSentence(s string) string {
	if i := strings.IndexAny(s, ";:("); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
