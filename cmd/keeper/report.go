package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/policies"
)

// reportNames are the reports `keeper report` prints.
var reportNames = []string{"rewards", "depositors", "vaults"}

// reportFlags are the flags of `keeper report`; each report kind takes some.
type reportFlags struct {
	cf                    *configFlags
	mint, from, to        string
	budget, rewardMint    string
	byLoan, asJSON, asCSV bool
	vaults                stringList
	user                  string
}

// reportCommand defines `keeper report`'s flags on fs and returns its body.
func reportCommand(fs *flag.FlagSet) action {
	f := &reportFlags{cf: addReadOnlyFlags(fs)}
	f.cf.quiet = true // report sends nothing: the notifiers' secrets may be absent
	fs.StringVar(&f.mint, "mint", "", "rewards: the collateral mint, or the pool id of CLMM/LP collateral")
	fs.StringVar(&f.from, "from", "", "rewards: the range's start (RFC 3339, YYYY-MM-DD in UTC, or unix seconds)")
	fs.StringVar(&f.to, "to", "", "rewards: the range's end, excluded (same forms; not in the future)")
	fs.StringVar(&f.budget, "budget", "", "rewards: the budget to split: smallest units, or a number and the reward token (\"5000 JTO\")")
	fs.StringVar(&f.rewardMint, "reward-mint", "", "rewards: the mint the budget is paid in (default: the budget's unit)")
	fs.BoolVar(&f.byLoan, "by-loan", false, "rewards: split by loan address instead of borrower wallet")
	fs.Var(&f.vaults, "vault", "depositors: a vault address to list (repeatable; default every vault)")
	fs.StringVar(&f.user, "user", "", "depositors: only this depositor's wallet")
	fs.BoolVar(&f.asJSON, "json", false, "print JSON")
	fs.BoolVar(&f.asCSV, "csv", false, "print CSV (one row per holder, depositor or vault)")
	return func(ctx context.Context, s *streams, args []string) int {
		kind := args[0]
		err := fs.Parse(args[1:])
		switch {
		case errors.Is(err, flag.ErrHelp):
			fmt.Fprintf(s.out, "Usage: keeper report %s [flags]\n\nFlags:\n", kind)
			printFlags(s.out, fs)
			return exitOK
		case err != nil:
			fmt.Fprintf(s.err, "keeper report %s: %s\n", kind, flagProblem(err, args[1:], fs))
			return exitUsage
		case fs.NArg() > 0:
			fmt.Fprintf(s.err, "keeper report %s: unexpected arguments %q (flags go after the report's name)\n", kind, fs.Args())
			return exitUsage
		}
		return f.run(ctx, s, kind)
	}
}

// run checks the flags for kind, opens keeper read-only and prints the
// report.
func (f *reportFlags) run(ctx context.Context, s *streams, kind string) int {
	if f.asJSON && f.asCSV {
		fmt.Fprintln(s.err, "keeper report: choose one of --json and --csv")
		return exitUsage
	}
	var req keeper.RewardsRequest
	switch kind {
	case "rewards":
		r, err := f.rewardsRequest()
		if err != nil {
			fmt.Fprintf(s.err, "keeper report rewards: %v\n", err)
			return exitUsage
		}
		req = r
	case "depositors", "vaults":
		if err := f.onlyFor(kind); err != nil {
			fmt.Fprintf(s.err, "keeper report %s: %v\n", kind, err)
			return exitUsage
		}
	default:
		fmt.Fprintf(s.err, "keeper report: %s: rewards, depositors or vaults\n", unknownName("report", kind, reportNames))
		return exitUsage
	}
	k, ok := f.cf.openReadOnly(s)
	if !ok {
		return exitUsage
	}
	defer k.Close()
	out := reportOutput{s: s, format: f.format()}
	var err error
	switch kind {
	case "rewards":
		err = out.rewards(k.Reports().Rewards(ctx, req))
	case "depositors":
		err = out.depositors(k.Reports().Depositors(ctx, keeper.DepositorsRequest{Vaults: f.vaults, User: f.user}))
	case "vaults":
		err = out.vaults(k.Reports().Vaults(ctx))
	}
	if err != nil {
		fmt.Fprintf(s.err, "keeper report %s: %v\n", kind, err)
		return exitFailed
	}
	return exitOK
}

// format is "json", "csv" or "table".
func (f *reportFlags) format() string {
	switch {
	case f.asJSON:
		return "json"
	case f.asCSV:
		return "csv"
	}
	return "table"
}

// rewardsRequest checks and reads the flags of the rewards report.
func (f *reportFlags) rewardsRequest() (keeper.RewardsRequest, error) {
	if len(f.vaults) > 0 || f.user != "" {
		return keeper.RewardsRequest{}, fmt.Errorf("--vault and --user are for the depositors report")
	}
	var missing []string
	for _, m := range []struct{ name, val string }{{"--mint", f.mint}, {"--from", f.from}, {"--to", f.to}, {"--budget", f.budget}} {
		if m.val == "" {
			missing = append(missing, m.name)
		}
	}
	if len(missing) > 0 {
		return keeper.RewardsRequest{}, fmt.Errorf("%s required", strings.Join(missing, ", "))
	}
	from, err := parseWhen(f.from)
	if err != nil {
		return keeper.RewardsRequest{}, fmt.Errorf("--from: %w", err)
	}
	to, err := parseWhen(f.to)
	if err != nil {
		return keeper.RewardsRequest{}, fmt.Errorf("--to: %w", err)
	}
	budget, err := policies.ParseAmount(f.budget)
	if err != nil {
		return keeper.RewardsRequest{}, fmt.Errorf("--budget: %w", err)
	}
	return keeper.RewardsRequest{Mint: f.mint, From: from, To: to, Budget: budget, RewardMint: f.rewardMint, ByLoan: f.byLoan}, nil
}

// onlyFor refuses the rewards flags in another report.
func (f *reportFlags) onlyFor(kind string) error {
	if f.mint != "" || f.from != "" || f.to != "" || f.budget != "" || f.rewardMint != "" || f.byLoan {
		return fmt.Errorf("--mint, --from, --to, --budget, --reward-mint and --by-loan are for the rewards report")
	}
	if kind == "vaults" && (len(f.vaults) > 0 || f.user != "") {
		return fmt.Errorf("--vault and --user are for the depositors report")
	}
	return nil
}

// parseWhen reads a time: RFC 3339, a date (midnight UTC), or unix seconds.
func parseWhen(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 {
		return time.Unix(n, 0).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a time: write RFC 3339 (2026-11-01T00:00:00Z), a date (2026-11-01) or unix seconds", s)
}
