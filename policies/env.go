package policies

import (
	"reflect"
	"strings"
)

// The expression environments. Each is compiled against at load time, so a
// misspelt field or a type mismatch is a load error. Pointer fields are
// always set during evaluation.

// loanEnv is the environment of repay policies and alerts on loans.
type loanEnv struct {
	Loan *LoanFacts `expr:"loan"`
	Now  int64      `expr:"now"`
}

// positionEnv is the environment of rebalance and claim-fees policies and
// alerts on positions: the position and the loan that holds it.
type positionEnv struct {
	Position *PositionFacts `expr:"position"`
	Loan     *LoanFacts     `expr:"loan"`
	Now      int64          `expr:"now"`
}

// withdrawalEnv is the environment of claim-withdrawals policies and alerts
// on withdrawals.
type withdrawalEnv struct {
	Withdrawal *WithdrawalFacts `expr:"withdrawal"`
	Now        int64            `expr:"now"`
}

// vaultEnv is the environment of strategy policies and alerts on vaults:
// the vault, its strategy, the best quotes for its principal mint and the
// loops that borrow it.
type vaultEnv struct {
	Vault    *VaultFacts    `expr:"vault"`
	Strategy *StrategyFacts `expr:"strategy"`
	Quotes   []QuoteFacts   `expr:"quotes"`
	Loops    []LoopFacts    `expr:"loops"`
	Now      int64          `expr:"now"`
}

// termEnv is the environment of a strategy-update rule's apy expression,
// evaluated once per collateral and duration the rule selects.
type termEnv struct {
	Vault      *VaultFacts    `expr:"vault"`
	Strategy   *StrategyFacts `expr:"strategy"`
	Collateral string         `expr:"collateral"`
	// Duration is the term, e.g. "7 days"; DurationSeconds the same in seconds.
	Duration        string `expr:"duration"`
	DurationSeconds int64  `expr:"duration_seconds"`
	// CurrentAPY is the term's APY now.
	CurrentAPY float64 `expr:"current_apy"`
	// HasQuote tells whether Quote holds the best quote for the term.
	HasQuote bool        `expr:"has_quote"`
	Quote    *QuoteFacts `expr:"quote"`
	// HasLoop tells whether Loop holds the loop of the vault's principal
	// and this collateral (E12).
	HasLoop bool       `expr:"has_loop"`
	Loop    *LoopFacts `expr:"loop"`
	Now     int64      `expr:"now"`
}

// envFor returns the zero environment of a target type, for compiling.
func envFor(t Target) any {
	switch t {
	case TargetLoans:
		return loanEnv{}
	case TargetPositions:
		return positionEnv{}
	case TargetWithdrawals:
		return withdrawalEnv{}
	case TargetVaults:
		return vaultEnv{}
	}
	return nil
}

// exprNames returns the expression names of the fields of struct type t.
func exprNames(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if name := exprName(f); name != "" {
			out = append(out, name)
		}
	}
	return out
}

// exprName is the expression name of a struct field, "" when hidden.
func exprName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag, _, _ := strings.Cut(f.Tag.Get("expr"), ",")
	switch tag {
	case "-":
		return ""
	case "":
		return f.Name
	}
	return tag
}

// factTypes are the structs whose fields expressions reach, by Go name, so
// an "unknown field" message can suggest the right one.
var factTypes = map[string]reflect.Type{}

func init() {
	for _, v := range []any{LoanFacts{}, LedgerFacts{}, CollateralFacts{}, PositionFacts{}, WithdrawalFacts{},
		VaultFacts{}, StrategyFacts{}, TermFacts{}, QuoteFacts{}, LoopFacts{}} {
		t := reflect.TypeOf(v)
		factTypes[t.Name()] = t
	}
}
