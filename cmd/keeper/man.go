package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
)

// printMan is `keeper man`.
func printMan(_ context.Context, s *streams, _ []string) int {
	writeMan(s.out)
	return exitOK
}

// writeMan writes keeper(1) from the same command definitions as the help.
func writeMan(w io.Writer) {
	fmt.Fprintf(w, ".TH KEEPER 1 \"\" \"keeper %s\" \"User Commands\"\n", version())
	fmt.Fprintln(w, ".SH NAME\nkeeper \\- policy-driven automation for a Solana lending market")
	fmt.Fprintln(w, ".SH SYNOPSIS\n.B keeper\n.I command\n[\\fIflags\\fR]")
	fmt.Fprintln(w, ".SH DESCRIPTION\nkeeper evaluates YAML policies on cron schedules against the market's API and the chain, "+
		"has the API build the transactions, checks them, signs them with the operator's key and lands them. "+
		"Read-only commands (plan, wallet, history, check) need only the wallet's public key.")
	fmt.Fprintln(w, ".SH COMMANDS")
	for _, c := range commands() {
		fmt.Fprintf(w, ".SS %s\n", roff("keeper "+c.name+" "+c.usage))
		fmt.Fprintln(w, roff(c.summary))
		for _, f := range c.flagsOf() {
			kind, usage := flag.UnquoteUsage(f)
			fmt.Fprintf(w, ".TP\n.B %s", roff(flagName(f.Name)))
			if kind != "" {
				fmt.Fprintf(w, " \\fI%s\\fR", roff(kind))
			}
			fmt.Fprintf(w, "\n%s\n", roff(usage))
		}
	}
	fmt.Fprintln(w, ".SH EXIT STATUS\n0 success; 1 a check, test or action failed; 2 a usage, config or key error; "+
		"3 (plan \\-\\-detailed\\-exitcode) some policy would act.")
	fmt.Fprintln(w, ".SH FILES\n.TP\nconfig.yaml\nthe configuration (docs/configuration.md)\n.TP\n~/.config/solana/cli/config.yml\n"+
		"the Solana CLI's config, read for the RPC and keypair the config file leaves out")
	fmt.Fprintln(w, ".SH SEE ALSO\nsolana(1), systemd.service(5); docs/operations.md and docs/policies.md in keeper's source")
}

// roff escapes text for a man page.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
