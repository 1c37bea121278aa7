package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/keeper-project/keeper/keeper"
	"github.com/keeper-project/keeper/policies"
)

// reportOutput prints reports as a table, JSON or CSV.
type reportOutput struct {
	s      *streams
	format string
}

// emit prints v as JSON, or rows as CSV, or calls table.
func (o reportOutput) emit(v any, header []string, rows [][]string, table func()) error {
	switch o.format {
	case "json":
		enc := json.NewEncoder(o.s.out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case "csv":
		w := csv.NewWriter(o.s.out)
		if err := w.Write(header); err != nil {
			return err
		}
		if err := w.WriteAll(rows); err != nil {
			return err
		}
		return w.Error()
	}
	table()
	return nil
}

// rewards prints a reward split.
func (o reportOutput) rewards(r *keeper.RewardsReport, err error) error {
	if err != nil {
		return err
	}
	amount := func(u uint64) string {
		if r.RewardMint == "" {
			return strconv.FormatUint(u, 10) + " units" // a budget in units, no reward mint named
		}
		return policies.FormatAmount(u, r.RewardMint, r.Tokens)
	}
	holder := "wallet"
	if r.ByLoan {
		holder = "loan"
	}
	header := []string{holder, "deposit_seconds", "fraction", "units", "amount", "remainder_unit"}
	rows := make([][]string, 0, len(r.Shares))
	for _, sh := range r.Shares {
		rows = append(rows, []string{sh.Holder, strconv.FormatFloat(sh.DepositSeconds, 'f', -1, 64),
			strconv.FormatFloat(sh.Fraction, 'f', -1, 64), strconv.FormatUint(sh.Units, 10), amount(sh.Units),
			strconv.FormatBool(sh.Remainder)})
	}
	return o.emit(r, header, rows, func() {
		w := o.s.out
		fmt.Fprintf(w, "Rewards of %s for collateral %s, %s to %s (by %s)\n", amount(r.Budget), r.Mint,
			r.From.Format(time.RFC3339), r.To.Format(time.RFC3339), holder)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "%s\tDEPOSIT-SECONDS\tSHARE\tAMOUNT\n", strings.ToUpper(holder))
		for _, sh := range r.Shares {
			mark := ""
			if sh.Remainder {
				mark = " *"
			}
			fmt.Fprintf(tw, "%s\t%.6g\t%.4f%%\t%s%s\n", sh.Holder, sh.DepositSeconds, 100*sh.Fraction, amount(sh.Units), mark)
		}
		tw.Flush()
		fmt.Fprintf(w, "%d holders; the parts sum to the budget. * one unit of the remainder: each holder gets the floor of its exact share, and the units left go one each to the largest fractional parts (ties to the lower address).\n", len(r.Shares))
	})
}

// depositors prints each vault's depositors.
func (o reportOutput) depositors(r *keeper.DepositorsReport, err error) error {
	if err != nil {
		return err
	}
	header := []string{"vault", "principal_mint", "user", "units", "amount", "fraction"}
	var rows [][]string
	for _, v := range r.Vaults {
		for _, u := range v.Users {
			rows = append(rows, []string{v.Vault, v.PrincipalMint, u.User, strconv.FormatUint(u.Supplied, 10),
				policies.FormatAmount(u.Supplied, v.PrincipalMint, r.Tokens), strconv.FormatFloat(u.Fraction, 'f', -1, 64)})
		}
	}
	return o.emit(r, header, rows, func() {
		w := o.s.out
		if len(r.Vaults) == 0 {
			fmt.Fprintln(w, "No deposits match.")
		}
		for i, v := range r.Vaults {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "Vault %s: %s from %d %s\n", v.Vault, policies.FormatAmount(v.Total, v.PrincipalMint, r.Tokens), len(v.Users),
				plural(len(v.Users), "depositor", "depositors"))
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "  USER\tSUPPLIED\tSHARE")
			for _, u := range v.Users {
				fmt.Fprintf(tw, "  %s\t%s\t%.2f%%\n", u.User, policies.FormatAmount(u.Supplied, v.PrincipalMint, r.Tokens), 100*u.Fraction)
			}
			tw.Flush()
		}
	})
}

// vaults prints each vault's metrics and loops.
func (o reportOutput) vaults(r *keeper.VaultsReport, err error) error {
	if err != nil {
		return err
	}
	header := []string{"vault", "principal_mint", "tvl_units", "tvl", "lending_apy", "rewards_apy", "total_apy", "utilisation", "loops"}
	rows := make([][]string, 0, len(r.Vaults))
	for _, v := range r.Vaults {
		rows = append(rows, []string{v.Address, v.PrincipalMint, strconv.FormatFloat(v.TVL, 'f', 0, 64), tvl(v, r.Tokens),
			strconv.FormatFloat(v.LendingAPY, 'f', -1, 64), apyField(v, "rewards_apy", v.RewardsAPY),
			apyField(v, "total_apy", v.TotalAPY), strconv.FormatFloat(v.Utilisation, 'f', -1, 64), loopsCell(v)})
	}
	return o.emit(r, header, rows, func() {
		w := o.s.out
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "VAULT\tTVL\tLENDING APY\tREWARDS APY\tTOTAL APY\tUTILISATION")
		for _, v := range r.Vaults {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.1f%%\n", v.Address, tvl(v, r.Tokens), pct(v.LendingAPY),
				pctOr(v, "rewards_apy", v.RewardsAPY), pctOr(v, "total_apy", v.TotalAPY), 100*v.Utilisation)
		}
		tw.Flush()
		writeLoops(w, r)
		for _, v := range r.Vaults {
			for name, why := range v.Unknown {
				fmt.Fprintf(w, "! %s %s unknown: %s\n", v.Address, name, why)
			}
		}
	})
}

// writeLoops lists the loops of each vault's principal, with wAvgApy shown
// and maxApy flagged when it is not representative.
func writeLoops(w io.Writer, r *keeper.VaultsReport) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	header := false
	for _, v := range r.Vaults {
		for _, l := range v.Loops {
			if !header {
				fmt.Fprintln(tw, "\nLOOP\tVAULT\tCOLLATERAL DEPOSITED\tWAVG APY\tMAX APY")
				header = true
			}
			fmt.Fprintf(tw, "%s\t%s\t%s %s\t%s\t%s\n", l.Identifier, v.Address, strconv.FormatFloat(l.CollateralDeposited, 'f', -1, 64), symbolOf(l.CollateralMint, r.Tokens),
				pct(l.WAvgAPY), maxAPY(l))
		}
	}
	tw.Flush()
}

// maxAPY shows a loop's maxApy, flagged when unrepresentative.
func maxAPY(l policies.LoopFacts) string {
	switch {
	case !l.HasMaxAPY:
		return "- (none given)"
	case l.BorrowLiquidity == 0:
		return pct(l.MaxAPY) + " (! borrow liquidity exhausted: not representative)"
	}
	return pct(l.MaxAPY)
}

// loopsCell lists a vault's loops for CSV: identifier=wAvgApy/maxApy.
func loopsCell(v policies.VaultView) string {
	parts := make([]string, 0, len(v.Loops))
	for _, l := range v.Loops {
		m := "none"
		if l.HasMaxAPY {
			m = strconv.FormatFloat(l.MaxAPY, 'f', -1, 64)
			if !l.MaxAPYRepresentative {
				m += "!"
			}
		}
		parts = append(parts, l.Identifier+"="+strconv.FormatFloat(l.WAvgAPY, 'f', -1, 64)+"/"+m)
	}
	return strings.Join(parts, ";")
}

// tvl shows a vault's TVL in whole principal tokens when known.
func tvl(v policies.VaultView, tokens map[string]policies.Token) string {
	if v.TVL < 0 || v.TVL >= 1<<64 {
		return strconv.FormatFloat(v.TVL, 'f', 0, 64)
	}
	return policies.FormatAmount(uint64(v.TVL), v.PrincipalMint, tokens)
}

// symbolOf is a mint's symbol, or its address.
func symbolOf(mint string, tokens map[string]policies.Token) string {
	if t, ok := tokens[mint]; ok && t.Symbol != "" {
		return t.Symbol
	}
	return mint
}

func pct(f float64) string { return strconv.FormatFloat(100*f, 'f', 2, 64) + "%" }

// pctOr shows an APY, or "unknown" when the vault could not know it.
func pctOr(v policies.VaultView, name string, f float64) string {
	if _, unknown := v.Unknown[name]; unknown {
		return "unknown"
	}
	return pct(f)
}

// apyField is an APY for CSV, empty when unknown.
func apyField(v policies.VaultView, name string, f float64) string {
	if _, unknown := v.Unknown[name]; unknown {
		return ""
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
