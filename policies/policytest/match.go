package policytest

import (
	"encoding/json"
	"fmt"
	"github.com/keeper-project/keeper/internal/strictyaml"
	"math/big"
	"slices"
	"strings"
)

// mismatches appends to out, as "path: want X, got Y", every place where
// got differs from want. want lists only what is compared: a mapping's
// unlisted keys are ignored; lists must have the same length.
func mismatches(want, got any, path string, out *[]string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: want an object, got %s", name(path), show(got)))
			return
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			gv, ok := g[k]
			if !ok && w[k] != nil {
				*out = append(*out, fmt.Sprintf("%s: want %s, got nothing", strictyaml.JoinPath(path, k), show(w[k])))
				continue
			}
			mismatches(w[k], gv, strictyaml.JoinPath(path, k), out)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			*out = append(*out, fmt.Sprintf("%s: want %d items, got %s", name(path), len(w), show(got)))
			return
		}
		for i := range w {
			mismatches(w[i], g[i], fmt.Sprintf("%s[%d]", path, i), out)
		}
	default:
		if !scalarEqual(want, got) {
			*out = append(*out, fmt.Sprintf("%s: want %s, got %s", name(path), show(want), show(got)))
		}
	}
}

// scalarEqual compares JSON scalars; numbers compare by value, and a
// string equals a number with the same value (amounts arrive as either).
func scalarEqual(want, got any) bool {
	wn, wok := number(want)
	gn, gok := number(got)
	if wok && gok {
		return wn.Cmp(gn) == 0
	}
	return want == got
}

// number returns v as an exact rational when it is a JSON number or a
// string holding one.
func number(v any) (*big.Rat, bool) {
	var s string
	switch v := v.(type) {
	case json.Number:
		s = v.String()
	case string:
		s = v
	default:
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

func show(v any) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func name(path string) string {
	if path == "" {
		return "request"
	}
	return path
}

// reasonMismatch describes a reason that does not contain want.
func reasonMismatch(want, got string) string {
	if want == "" || strings.Contains(got, want) {
		return ""
	}
	return fmt.Sprintf("reason: want it to contain %q, got %q", want, got)
}
