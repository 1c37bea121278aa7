package signer

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/gagliardetto/solana-go"
)

// DefaultMaxComputeUnitPrice is the compute-unit price cap, in micro-lamports
// per compute unit, used when GuardConfig.MaxComputeUnitPrice is zero. At the
// 1.4M unit limit it allows a priority fee of 0.007 SOL.
const DefaultMaxComputeUnitPrice = 5_000_000

// memoV1ProgramID is the first SPL Memo program; solana-go names only v2.
var memoV1ProgramID = solana.MustPublicKeyFromBase58("Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo")

// GuardConfig configures the guard. Program ids and keys are base58 strings.
type GuardConfig struct {
	// MarketProgram is the lending market's program id. Required.
	MarketProgram string
	// DexAProgram and DexBProgram are the CLMM program ids of dex-a and dex-b.
	// Optional; when empty, instructions of those programs are refused.
	DexAProgram string
	DexBProgram string
	// Programs replaces the default allowlist of the kinds it names. The
	// default for every kind but tip is System, Token, Token-2022, Associated
	// Token, ComputeBudget, Memo (v1 and v2), the market program and the dex
	// programs; for tip it is System and ComputeBudget.
	Programs map[Kind][]string
	// ExtraPrograms adds program ids to the allowlist of the kinds it names,
	// after Programs replaced any defaults (the earn vault program for
	// claim-withdrawals, for example).
	ExtraPrograms map[Kind][]string
	// AllowMarketFeePayer lets another required signer pay the fees. When
	// CoSigners is set, the fee payer must be one of them.
	AllowMarketFeePayer bool
	// MaxComputeUnitPrice caps SetComputeUnitPrice, in micro-lamports per
	// compute unit; zero means DefaultMaxComputeUnitPrice.
	MaxComputeUnitPrice uint64
	// CoSigners, when set, are the only keys besides ours that may be required
	// signers (the market's co-signer, for example).
	CoSigners []string
	// AllowDurableNonce allows transactions whose first instruction advances a
	// durable nonce. Off by default: such a transaction never expires, so a
	// failed attempt could land long after keeper built a new one.
	AllowDurableNonce bool
}

// guard is a compiled GuardConfig for one wallet.
type guard struct {
	wallet        solana.PublicKey
	wsolATA       solana.PublicKey // our wrapped-SOL associated token account
	programs      map[Kind]map[solana.PublicKey]bool
	allowFeePayer bool
	maxUnitPrice  uint64
	coSigners     map[solana.PublicKey]bool // nil: any co-signer
	allowNonce    bool
}

// compileGuard validates cfg and builds the guard for wallet.
func compileGuard(cfg GuardConfig, wallet solana.PublicKey) (*guard, error) {
	g := &guard{
		wallet:        wallet,
		allowFeePayer: cfg.AllowMarketFeePayer,
		maxUnitPrice:  cfg.MaxComputeUnitPrice,
		allowNonce:    cfg.AllowDurableNonce,
	}
	if g.maxUnitPrice == 0 {
		g.maxUnitPrice = DefaultMaxComputeUnitPrice
	}
	ata, _, err := solana.FindAssociatedTokenAddress(wallet, solana.WrappedSol)
	if err != nil {
		return nil, fmt.Errorf("signer: guard config: wrapped-SOL account of %s: %w", wallet, err)
	}
	g.wsolATA = ata
	if g.programs, err = compilePrograms(cfg); err != nil {
		return nil, fmt.Errorf("signer: guard config: %w", err)
	}
	if len(cfg.CoSigners) > 0 {
		if g.coSigners, err = keySet(cfg.CoSigners); err != nil {
			return nil, fmt.Errorf("signer: guard config: co-signers: %w", err)
		}
	}
	return g, nil
}

// compilePrograms builds the per-kind allowlists.
func compilePrograms(cfg GuardConfig) (map[Kind]map[solana.PublicKey]bool, error) {
	if cfg.MarketProgram == "" {
		return nil, errors.New("market program id is required")
	}
	common := []solana.PublicKey{solana.SystemProgramID, solana.TokenProgramID, solana.Token2022ProgramID,
		solana.SPLAssociatedTokenAccountProgramID, solana.ComputeBudget, solana.MemoProgramID, memoV1ProgramID}
	for _, p := range []struct{ name, id string }{
		{"market program", cfg.MarketProgram}, {"dex-a program", cfg.DexAProgram}, {"dex-b program", cfg.DexBProgram},
	} {
		if p.id == "" {
			continue
		}
		pk, err := solana.PublicKeyFromBase58(p.id)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", p.name, p.id, err)
		}
		common = append(common, pk)
	}
	out := make(map[Kind]map[solana.PublicKey]bool, len(kindPermissions))
	for _, k := range Kinds() {
		out[k] = setOf(common)
	}
	out[KindTip] = setOf([]solana.PublicKey{solana.SystemProgramID, solana.ComputeBudget})
	for _, k := range slices.Sorted(maps.Keys(cfg.Programs)) {
		set, err := kindKeySet("programs", k, cfg.Programs[k])
		if err != nil {
			return nil, err
		}
		out[k] = set
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.ExtraPrograms)) {
		set, err := kindKeySet("extra programs", k, cfg.ExtraPrograms[k])
		if err != nil {
			return nil, err
		}
		maps.Copy(out[k], set)
	}
	return out, nil
}

func setOf(keys []solana.PublicKey) map[solana.PublicKey]bool {
	m := make(map[solana.PublicKey]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// keySet parses base58 keys into a set.
func keySet(keys []string) (map[solana.PublicKey]bool, error) {
	m := make(map[solana.PublicKey]bool, len(keys))
	for _, s := range keys {
		pk, err := solana.PublicKeyFromBase58(s)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", s, err)
		}
		m[pk] = true
	}
	return m, nil
}

// kindKeySet parses the program ids ids of action kind k, which must be known; key names the
// GuardConfig member in errors.
func kindKeySet(key string, k Kind, ids []string) (map[solana.PublicKey]bool, error) {
	if _, ok := kindPermissions[k]; !ok {
		return nil, fmt.Errorf("%s: unknown action kind %q", key, k)
	}
	set, err := keySet(ids)
	if err != nil {
		return nil, fmt.Errorf("%s for %s: %w", key, k, err)
	}
	return set, nil
}
