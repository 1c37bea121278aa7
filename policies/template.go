package policies

import (
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/keeper-project/keeper/internal/amounts"
)

// templateFuncs are the functions alert messages may call besides the
// text/template builtins.
var templateFuncs = template.FuncMap{
	// pct formats a fraction as a percentage with two decimals: 0.1234 → 12.34%.
	"pct": func(f float64) string { return strconv.FormatFloat(f*100, 'f', 2, 64) + "%" },
	// usd formats a USD value with two decimals: 1234.5 → $1234.50.
	"usd": func(f float64) string { return "$" + strconv.FormatFloat(f, 'f', 2, 64) },
}

var templateErrRE = regexp.MustCompile(`^template: alert:(\d+)(?::(\d+))?: (.*)$`)

// compileTemplate parses an alert message and executes it once against
// the zero facts of target type t, so unknown fields fail at load.
func compileTemplate(src string, t Target) (*template.Template, *exprError) {
	tmpl, err := template.New("alert").Option("missingkey=error").Funcs(templateFuncs).Parse(src)
	if err == nil {
		err = bounded(tmpl)
	}
	if err == nil {
		err = tmpl.Execute(io.Discard, factsMap(zeroEnv(t)))
	}
	if err == nil {
		return tmpl, nil
	}
	e := &exprError{line: 1, col: 0, msg: err.Error()}
	if m := templateErrRE.FindStringSubmatch(err.Error()); m != nil {
		e.line, _ = strconv.Atoi(m[1])
		if m[2] != "" {
			e.col, _ = strconv.Atoi(m[2])
		}
		e.msg = m[3]
	}
	e.msg = strings.TrimPrefix(e.msg, "executing \"alert\" ")
	return nil, e
}

// wideFormatRE matches a printf verb with a width or precision of 1000 or more.
var wideFormatRE = regexp.MustCompile(`%[-+# 0]*(\d{4,}|\.\d{4,}|\d*\.\d{4,})`)

// bounded refuses the template constructs whose run time or output has no
// bound: range (which ranges over integers too), template calls and
// definitions (recursion), and printf widths of 1000 or more. What is left
// runs in time proportional to the template's size.
func bounded(tmpl *template.Template) error {
	if len(tmpl.Templates()) > 1 {
		return fmt.Errorf("template: alert:1: define and block are not allowed in a message")
	}
	var walk func(n parse.Node) error
	walk = func(n parse.Node) error {
		switch n := n.(type) {
		case *parse.ListNode:
			if n == nil {
				return nil
			}
			for _, c := range n.Nodes {
				if err := walk(c); err != nil {
					return err
				}
			}
		case *parse.IfNode:
			return cmpErr(walk(n.List), walk(n.ElseList))
		case *parse.WithNode:
			return cmpErr(walk(n.List), walk(n.ElseList))
		case *parse.RangeNode, *parse.TemplateNode:
			loc, _ := tmpl.ErrorContext(n)
			return fmt.Errorf("template: %s: %s is not allowed in a message", loc, strings.Fields(n.String())[0]+"}}")
		case *parse.ActionNode:
			if wideFormatRE.MatchString(n.String()) {
				loc, _ := tmpl.ErrorContext(n)
				return fmt.Errorf("template: %s: printf widths and precisions must stay below 1000", loc)
			}
		}
		return nil
	}
	return walk(tmpl.Tree.Root)
}

// cmpErr returns the first non-nil error.
func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// zeroEnv returns a pointer to the environment of t with every fact
// pointer set to a zero value.
func zeroEnv(t Target) any {
	switch t {
	case TargetLoans:
		return &loanEnv{Loan: &LoanFacts{}}
	case TargetPositions:
		return &positionEnv{Position: &PositionFacts{}, Loan: &LoanFacts{}}
	case TargetWithdrawals:
		return &withdrawalEnv{Withdrawal: &WithdrawalFacts{}}
	}
	return &vaultEnv{Vault: &VaultFacts{}, Strategy: &StrategyFacts{}}
}

// renderAlert executes the message against env.
func renderAlert(tmpl *template.Template, env any) (string, error) {
	var b strings.Builder
	if err := tmpl.Execute(&b, factsMap(env)); err != nil {
		return "", fmt.Errorf("rendering message: %w", err)
	}
	return b.String(), nil
}

// factsMap converts an environment or fact struct into maps keyed by
// expression names, so templates address facts as expressions do.
func factsMap(v any) any { return toMap(reflect.ValueOf(v)) }

func toMap(v reflect.Value) any {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Struct:
		m := make(map[string]any, v.NumField())
		for i := range v.NumField() {
			if name := exprName(v.Type().Field(i)); name != "" {
				m[name] = toMap(v.Field(i))
			}
		}
		return m
	case reflect.Slice:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = toMap(v.Index(i))
		}
		return out
	}
	return v.Interface()
}

// quote returns s in Go double quotes.
func quote(s string) string { return strconv.Quote(s) }

// FormatAmount renders units of mint for people by keeper's one rule for
// amounts (package internal/amounts): "412.5 USDC", "10 SOL" when the
// token is known, "412500000 units of EPjF…Dt1v" otherwise.
func FormatAmount(units uint64, mint string, tokens map[string]Token) string {
	t, ok := tokens[mint]
	if !ok {
		return strconv.FormatUint(units, 10) + " units of " + shortKey(mint)
	}
	sym := t.Symbol
	if sym == "" {
		sym = shortKey(mint)
	}
	return amounts.Format(units, t.Decimals) + " " + sym
}

// FormatSOL renders lamports as SOL: 10000 → "0.00001 SOL".
func FormatSOL(lamports uint64) string { return amounts.SOL(lamports) }

// shortKey abbreviates a base58 key for messages: "EPjF…Dt1v".
func shortKey(s string) string {
	if len(s) <= 12 {
		return s
	}
	return s[:4] + "…" + s[len(s)-4:]
}

// formatRatio renders a health or ratio with four decimals, trailing zeros
// dropped down to two: 0.08 → "0.08", 0.123456 → "0.1235".
func formatRatio(f float64) string {
	s := strconv.FormatFloat(f, 'f', 4, 64)
	for strings.HasSuffix(s, "0") && len(s)-strings.IndexByte(s, '.') > 3 {
		s = s[:len(s)-1]
	}
	return s
}
