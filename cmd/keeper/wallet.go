package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/policies"
)

// stringList is a flag that may be given more than once.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// walletCommand defines `keeper wallet`'s flags on fs and returns its body.
func walletCommand(fs *flag.FlagSet) action {
	cf := addReadOnlyFlags(fs)
	cf.quiet = true // wallet sends nothing: the notifiers' secrets may be absent
	var earn stringList
	fs.Var(&earn, "earn-vault", "an earn vault whose withdrawal queue to read (repeatable; the claim-withdrawals policies' vaults are read too)")
	asJSON := fs.Bool("json", false, "print JSON")
	return func(ctx context.Context, s *streams, _ []string) int {
		k, ok := cf.openReadOnly(s)
		if !ok {
			return exitUsage
		}
		defer k.Close()
		rep, err := k.Holdings(ctx, earn)
		if err != nil {
			fmt.Fprintf(s.err, "keeper wallet: %v\n", err)
			return exitFailed
		}
		if *asJSON {
			enc := json.NewEncoder(s.out)
			enc.SetIndent("", "  ")
			if err := enc.Encode(rep); err != nil {
				return exitFailed
			}
			return exitOK
		}
		writeWallet(s.out, rep, time.Now())
		return exitOK
	}
}

// pubkeyCommand defines `keeper pubkey`'s flags on fs and returns its body.
func pubkeyCommand(fs *flag.FlagSet) action {
	cf := addConfigFlags(fs).addKeypairFlag(fs)
	cf.quiet = true
	return cf.withConfig(func(ctx context.Context, s *streams, cfg *config.Config, _ []string) int {
		if cfg.Signer.PKCS11 != nil {
			return printTokenKey(ctx, s, cfg)
		}
		pk, err := keeper.WalletOf(cfg)
		if err != nil {
			sayErr(s.err, err)
			return exitUsage
		}
		fmt.Fprintln(s.out, pk)
		return exitOK
	})
}

// printTokenKey prints the public key of the key in the PKCS#11 token, read
// from the token (signing nothing); when signer.pubkey names another key,
// it prints the token's and fails, as a run would.
func printTokenKey(ctx context.Context, s *streams, cfg *config.Config) int {
	pk, err := keeper.TokenWallet(ctx, cfg)
	if !pk.IsZero() {
		fmt.Fprintln(s.out, pk)
	}
	if err != nil {
		fmt.Fprintln(s.err, err)
		if pk.IsZero() {
			return exitUsage
		}
		return exitFailed
	}
	return exitOK
}

// writeWallet prints the report as tables, amounts in whole tokens where
// the mint is known, with full addresses (what a policy's select takes).
func writeWallet(w io.Writer, r *keeper.WalletReport, now time.Time) {
	fmt.Fprintf(w, "Wallet %s: %s\n", r.Wallet, policies.FormatSOL(r.Lamports))
	if link := r.Links[r.Wallet]; link != "" {
		fmt.Fprintf(w, "  %s\n", link)
	}
	amount := func(units uint64, mint string) string { return policies.FormatAmount(units, mint, r.Tokens) }
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "\nLOANS (%d)\tHEALTH\tLTV\tDEBT USD\tCOLLATERAL USD\tOWED\tCOLLATERAL\tENDS\n", len(r.Loans))
	for _, l := range r.Loans {
		var owed, coll, end []string
		for _, g := range l.Ledgers {
			owed = append(owed, amount(g.PrincipalDue-min(g.PrincipalRepaid, g.PrincipalDue), g.PrincipalMint))
			end = append(end, ends(g.EndTime, now))
		}
		for _, c := range l.Collateral {
			what := amount(c.Amount, c.Mint)
			if c.IsCLMM {
				what = "CLMM pool " + c.Identifier // the collateral's identifier is its pool's id
			}
			coll = append(coll, what)
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.2f\t%.2f\t%s\t%s\t%s\n", l.Address, l.Health, l.LTV, l.DebtUSD, l.CollateralUSD,
			strings.Join(owed, ", "), strings.Join(coll, ", "), strings.Join(end, ", "))
	}
	fmt.Fprintf(tw, "\nPOSITIONS (%d)\tLOAN\tDEX\tRANGE\tCURRENT\tIN RANGE\tFEES OWED\n", len(r.Positions))
	for _, p := range r.Positions {
		fees := "unknown"
		if p.OwedKnown {
			fees = feesOwed(p.FeesOwed0, p.FeesOwed1, r.PoolMints[p.PositionMint], amount)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t[%d, %d)\t%d\t%v\t%s\n", p.PositionMint, p.Loan, p.Dex, p.TickLower, p.TickUpper,
			p.TickCurrent, p.InRange, fees)
	}
	fmt.Fprintf(tw, "\nWITHDRAWALS (%d)\tVAULT\tSTATE\tFILLED / REQUESTED\n", len(r.Withdrawals))
	for _, q := range r.Withdrawals {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d / %d base units\n", q.RequestID, q.Vault, q.State, q.Filled, q.Requested)
	}
	tw.Flush()
	if len(r.Withdrawals) > 0 {
		// The market's earn answers name no mint: amounts keeper cannot
		// scale are shown raw and said to be.
		fmt.Fprintln(w, "(withdrawal amounts are in base units of the vault's token: the market's earn answers name no mint)")
	}
	if len(r.EarnVaults) == 0 {
		fmt.Fprintln(w, "(no earn vault read: name one with --earn-vault, or select it in a claim-withdrawals policy)")
	}
	for what, why := range r.Problems {
		fmt.Fprintf(w, "! %s: %s\n", what, why)
	}
}

// feesOwed writes a position's fees owed in its pool's tokens, or in
// units of token 0 and 1 when the pool's mints are not known.
func feesOwed(owed0, owed1 uint64, mints [2]string, amount func(uint64, string) string) string {
	if mints[0] == "" {
		return fmt.Sprintf("%d + %d units (token 0 + 1)", owed0, owed1)
	}
	return amount(owed0, mints[0]) + " + " + amount(owed1, mints[1])
}

// ends says when a unix time is, and how far from now, in days or hours.
func ends(unix int64, now time.Time) string {
	t := time.Unix(unix, 0).UTC()
	d := t.Sub(now)
	switch {
	case d < 0:
		return t.Format(time.DateOnly) + " (ended)"
	case d >= 48*time.Hour:
		return fmt.Sprintf("%s (in %dd)", t.Format(time.DateOnly), int(d.Hours()/24))
	}
	return fmt.Sprintf("%s (in %dh)", t.Format(time.DateTime), int(d.Hours()))
}
