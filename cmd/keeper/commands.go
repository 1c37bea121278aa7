package main

import (
	"context"
	"flag"
	"fmt"
)

// commands lists the subcommands in the order `keeper help` shows them:
// each one's name, usage and summary here, its flags and body in its file.
func commands() []command {
	return []command{
		{name: "run", usage: "[--config config.yaml] [--once] [--dry-run] [--sim [--sim-for D]]", flags: runCommand,
			summary: "run the daemon: evaluate policies on their schedules and act (--once: one pass, for cron/systemd timers)"},
		{name: "check", usage: "[--config config.yaml] [--online]", flags: checkCommand,
			summary: "validate the config, the key and every policy as run would at start (offline unless --online); print each error as file:line:col; exit 2 on a config or key error, 1 on a policy error"},
		{name: "plan", usage: "[--config config.yaml] [--wallet PUBKEY] [--json] [--detailed-exitcode] [--capture DIR]", flags: planCommand,
			summary: "read live state and print what each policy would do now, and why; signs nothing"},
		{name: "wallet", usage: "[--config config.yaml] [--wallet PUBKEY] [--earn-vault ADDR]... [--json]", flags: walletCommand,
			summary: "show what the wallet owns: loans, CLMM positions, earn withdrawal requests and SOL, with the addresses policies select; needs no key"},
		{name: "report", usage: "rewards|depositors|vaults [--config config.yaml] [flags] [--json|--csv]", args: atLeastOne("name a report: rewards, depositors or vaults"), choices: reportNames, flags: reportCommand,
			summary: "reports for vault operators: a reward budget split by time-weighted collateral (rewards), each vault's depositors (depositors), vault metrics and loops (vaults); needs no key"},
		{name: "pubkey", usage: "[--config config.yaml]", flags: pubkeyCommand,
			summary: "print the wallet's public key (signer.pubkey, or the key's public half; with signer.pkcs11, the token's key)"},
		{name: "test", usage: "FILE...", args: atLeastOne("name at least one test file"), flags: noFlags(runTests),
			summary: "run policy unit tests: given market state, each policy must plan exactly the expected actions"},
		{name: "history", usage: "[--config config.yaml] [--policy P] [--since D] [--json]", flags: historyCommand,
			summary: "show the journal: what keeper decided and did, and its alert incidents, newest first"},
		{name: "backup", usage: "[--config config.yaml] FILE", args: exactlyOne("name the file to write"), flags: backupCommand,
			summary: "copy the journal to FILE, consistently, while keeper runs (restore: stop keeper, put FILE in the journal's place)"},
		{name: "sim", usage: "[--listen ADDR] [--scenario FILE] [--wallet PUBKEY | --keypair FILE] [--manual-clock] [--control] [--hostile MODE] [--faults SPEC] [--seed N]", flags: simCommand,
			summary: "serve the simulated market API, Solana RPC and Jito engine for manual runs"},
		{name: "completion", usage: "bash|zsh|fish", args: exactlyOne("name one shell: bash, zsh or fish"), choices: []string{"bash", "zsh", "fish"}, flags: noFlags(printCompletion),
			summary: "print a shell completion script for keeper's commands and flags"},
		{name: "man", args: takesNone, flags: noFlags(printMan),
			summary: "print keeper's manual page (roff: keeper man > keeper.1; man ./keeper.1)"},
		{name: "version", args: takesNone, flags: noFlags(printVersion),
			summary: "print keeper's version, VCS revision and Go version"},
	}
}

// action is a command's body: it runs with the arguments left after the
// flags, once they passed the command's argument check.
type action func(ctx context.Context, s *streams, args []string) int

// noFlags is the flags of a command that has none: its body alone.
func noFlags(body action) func(*flag.FlagSet) action {
	return func(*flag.FlagSet) action { return body }
}

// arguments says how many arguments a command takes, and what to say when
// it is given another number. The zero value takes none and quotes the
// unexpected ones.
type arguments struct {
	min, max int    // max < 0: no upper bound
	want     string // what to say instead of quoting the unexpected arguments
}

// takesNone refuses every argument without quoting them.
var takesNone = arguments{want: "takes no arguments"}

// exactlyOne takes a single argument, saying want otherwise.
func exactlyOne(want string) arguments { return arguments{min: 1, max: 1, want: want} }

// atLeastOne takes one argument or more, saying want when there is none.
func atLeastOne(want string) arguments { return arguments{min: 1, max: -1, want: want} }

// problem says what is wrong with args, or "" when they fit.
func (a arguments) problem(args []string) string {
	if len(args) >= a.min && (a.max < 0 || len(args) <= a.max) {
		return ""
	}
	if a.want == "" {
		return fmt.Sprintf("unexpected arguments %q", args)
	}
	return a.want
}
