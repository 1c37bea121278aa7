package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit codes, as documented in the design: users' scripts rely on them.
const (
	exitOK     = 0 // success
	exitFailed = 1 // a check or test failed, or an action failed (run --once)
	exitUsage  = 2 // usage or config error
)

// streams are where a command writes; tests replace them.
type streams struct {
	out io.Writer
	err io.Writer
}

// command is one subcommand of keeper.
type command struct {
	name    string
	usage   string    // arguments after the name
	summary string    // one line for `keeper help`
	args    arguments // the arguments it takes, checked before it runs
	choices []string  // the words its first argument may be, for completion
	// flags defines the command's flags on fs and returns its body, which
	// reads them.
	flags func(fs *flag.FlagSet) action
}

// run dispatches args to a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, s *streams) int {
	if len(args) == 0 {
		usage(s.err)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		return help(s, args[1:])
	case "--version", "-version", "-V":
		fmt.Fprintln(s.out, versionLine())
		return exitOK
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(ctx, s, args[1:])
		}
	}
	fmt.Fprintf(s.err, "keeper: %s\nRun `keeper help` for the commands.\n", unknownName("command", name, commandNames()))
	return exitUsage
}

// run parses the command's flags and calls it.
func (c command) run(ctx context.Context, s *streams, args []string) int {
	fs := flag.NewFlagSet("keeper "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are said below, in the user's spelling
	fs.Usage = func() {}     // printed below, to the right stream
	body := c.flags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.printUsage(s.out, fs)
			return exitOK
		}
		fmt.Fprintf(s.err, "keeper %s: %s\nRun `keeper %s -h` for its flags.\n", c.name, flagProblem(err, args, fs), c.name)
		return exitUsage
	}
	if msg := c.args.problem(fs.Args()); msg != "" {
		fmt.Fprintf(s.err, "keeper %s: %s\n", c.name, msg)
		return exitUsage
	}
	return body(ctx, s, fs.Args())
}

func (c command) printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: keeper %s %s\n\n%s\n", c.name, c.usage, c.summary)
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintf(w, "\nFlags:\n")
		printFlags(w, fs)
	}
}

// printFlags lists fs's flags as the docs write them: --name for words, -x
// for single letters, with the value's kind and the default.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		kind, usage := flag.UnquoteUsage(f)
		fmt.Fprintf(w, "  %s", flagName(f.Name))
		if kind != "" {
			fmt.Fprintf(w, " %s", kind)
		}
		fmt.Fprintf(w, "\n    \t%s", strings.ReplaceAll(usage, "\n", "\n    \t"))
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" && f.DefValue != "0s" {
			fmt.Fprintf(w, " (default %q)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

// flagName writes a flag as the docs do: -u, --config.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagsOf lists a command's flags, by defining them on a throwaway set.
func (c command) flagsOf() []*flag.Flag {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.flags(fs)
	var out []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) { out = append(out, f) })
	return out
}

func help(s *streams, args []string) int {
	if len(args) == 0 {
		usage(s.out)
		return exitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(context.Background(), s, []string{"-h"})
		}
	}
	fmt.Fprintf(s.err, "keeper help: %s\n", unknownName("command", args[0], commandNames()))
	return exitUsage
}

func usage(w io.Writer) {
	var b strings.Builder
	b.WriteString("keeper keeps positions on a Solana lending market healthy and tidy, by policy.\n\nUsage: keeper <command> [flags]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-8s %s\n", c.name, c.summary)
	}
	b.WriteString("\nRun `keeper <command> -h` for a command's flags.\nExit codes: 0 ok, 1 a check, test or action failed, 2 usage or config error.\n")
	io.WriteString(w, b.String())
}
