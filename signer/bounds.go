package signer

import (
	"fmt"
	"maps"
	"math/big"
	"slices"

	"github.com/gagliardetto/solana-go"
)

// Bounds are one action's limits on what may leave our wallet. Zero values
// allow nothing: a zero MaxLamports refuses even the fee.
type Bounds struct {
	// MaxLamports bounds SOL leaving the wallet: fees (when we pay them),
	// tips and rent for accounts we fund.
	MaxLamports uint64 `json:"maxLamports"`
	// MaxTokens bounds token amounts leaving the wallet, by base58 mint, in
	// the mint's smallest unit (a repay: its amount). Wrapped SOL is one
	// asset with SOL: lamports wrapped into our own wrapped-SOL account are
	// no outflow until the tokens leave it, and the simulation check bounds
	// SOL and wrapped SOL together by MaxLamports plus this bound.
	MaxTokens map[string]uint64 `json:"maxTokens,omitempty"`
	// TipAccounts are the accounts a tip may go to (kind tip), base58.
	TipAccounts []string `json:"tipAccounts,omitempty"`
	// MaxTip bounds the lamports tipped in one transaction (kind tip).
	MaxTip uint64 `json:"maxTip,omitempty"`
	// MaxComputeUnitPrice lowers the guard's compute unit price cap for
	// this action (micro-lamports per unit); 0 keeps the guard's.
	MaxComputeUnitPrice uint64 `json:"maxComputeUnitPrice,omitempty"`
}

// Outflows are our wallet's net outflows as a simulation reports them;
// negative values are inflows.
type Outflows struct {
	// Lamports is the net SOL outflow of the wallet, fees included.
	Lamports int64
	// Tokens maps a base58 mint to the net outflow from the wallet's token
	// accounts of that mint.
	Tokens map[string]int64
}

// bounds is a parsed Bounds.
type bounds struct {
	maxUnitPrice uint64 // 0: the guard's cap
	maxLamports  uint64
	maxTokens    map[solana.PublicKey]uint64
	tipAccounts  map[solana.PublicKey]bool
	maxTip       uint64
}

// compileBounds parses b's keys.
func compileBounds(b Bounds) (*bounds, error) {
	out := &bounds{maxUnitPrice: b.MaxComputeUnitPrice, maxLamports: b.MaxLamports, maxTip: b.MaxTip,
		maxTokens: make(map[solana.PublicKey]uint64, len(b.MaxTokens))}
	for mint, limit := range b.MaxTokens {
		pk, err := solana.PublicKeyFromBase58(mint)
		if err != nil {
			return nil, fmt.Errorf("signer: bounds: mint %q: %w", mint, err)
		}
		out.maxTokens[pk] = limit
	}
	var err error
	if out.tipAccounts, err = keySet(b.TipAccounts); err != nil {
		return nil, fmt.Errorf("signer: bounds: tip account %w", err)
	}
	return out, nil
}

// CheckOutflows is the guard's second check, over what a simulation of the
// signed transaction reports for our wallet. Wrapped SOL is one asset with
// SOL: the net SOL outflow plus the net wrapped-SOL outflow must not exceed
// b.MaxLamports plus the wrapped-SOL bound in b.MaxTokens
// ([RuleSimulatedLamports]), so a repay of X wrapped SOL from native SOL
// passes with X + fees + rent and one lamport more is refused. Each other
// mint's net token outflow must not exceed its bound in b.MaxTokens, a mint
// without a bound allowing none ([RuleSimulatedTokens]). Inflows always
// pass. Unlike the static check, this sees rent and transfers made inside
// other programs.
func CheckOutflows(kind Kind, b Bounds, o Outflows) error {
	if _, ok := kindPermissions[kind]; !ok {
		return refuse(RuleUnknownKind, "unknown action kind %q", kind)
	}
	cb, err := compileBounds(b)
	if err != nil {
		return err
	}
	wsol := solana.WrappedSol.String()
	sol := big.NewInt(o.Lamports)
	sol.Add(sol, big.NewInt(o.Tokens[wsol]))
	solBound := new(big.Int).SetUint64(cb.maxLamports)
	solBound.Add(solBound, new(big.Int).SetUint64(cb.maxTokens[solana.WrappedSol]))
	if sol.Sign() > 0 && sol.Cmp(solBound) > 0 {
		return refuse(RuleSimulatedLamports, "%s: simulation shows %s lamports (SOL and wrapped SOL) leaving the wallet, bound is %s",
			kind, sol, solBound)
	}
	for _, mint := range slices.Sorted(maps.Keys(o.Tokens)) {
		out := o.Tokens[mint]
		if out <= 0 || mint == wsol {
			continue
		}
		pk, err := solana.PublicKeyFromBase58(mint)
		if err != nil {
			return fmt.Errorf("signer: outflows: mint %q: %w", mint, err)
		}
		if limit, ok := cb.maxTokens[pk]; !ok || uint64(out) > limit {
			return refuse(RuleSimulatedTokens, "%s: simulation shows %d of mint %s leaving the wallet, bound is %d",
				kind, out, mint, limit)
		}
	}
	return nil
}
