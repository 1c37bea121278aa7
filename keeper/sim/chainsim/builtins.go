package chainsim

import "github.com/gagliardetto/solana-go"

// Program ids the chain knows besides those in solana-go.
var (
	memoV1ProgramID     = solana.MustPublicKeyFromBase58("Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo")
	nativeLoaderID      = solana.MustPublicKeyFromBase58("NativeLoader1111111111111111111111111111111")
	recentBlockhashesID = solana.MustPublicKeyFromBase58("SysvarRecentB1ockHashes11111111111111111111")
	sysvarIDs           = []solana.PublicKey{
		recentBlockhashesID,
		solana.MustPublicKeyFromBase58("SysvarC1ock11111111111111111111111111111111"),
		solana.MustPublicKeyFromBase58("SysvarRent111111111111111111111111111111111"),
		solana.MustPublicKeyFromBase58("Sysvar1nstructions1111111111111111111111111"),
	}
)

// builtinFunc is the body of a built-in program.
type builtinFunc func(x *Exec, ix Instruction) error

// builtin is one of the programs the chain implements itself.
type builtin struct {
	run    builtinFunc
	loader solana.PublicKey // owner of the program account
	native bool             // a native runtime program: 3,000 default units, no "consumed" log
}

// builtins maps program ids to the chain's own programs.
var builtins = map[solana.PublicKey]builtin{
	solana.SystemProgramID:                    {run: runSystem, loader: nativeLoaderID, native: true},
	solana.ComputeBudget:                      {run: runComputeBudget, loader: nativeLoaderID, native: true},
	solana.TokenProgramID:                     {run: runToken, loader: solana.BPFLoaderProgramID},
	solana.SPLAssociatedTokenAccountProgramID: {run: runATA, loader: solana.BPFLoaderProgramID},
	solana.MemoProgramID:                      {run: runMemo, loader: solana.BPFLoaderProgramID},
	memoV1ProgramID:                           {run: runMemo, loader: solana.BPFLoaderDeprecatedProgramID},
}

// isNativeBuiltin reports whether key is a native runtime program, whose
// instructions get the small default compute-unit limit.
func isNativeBuiltin(key solana.PublicKey) bool {
	b, ok := builtins[key]
	return ok && b.native || key == solana.AddressLookupTableProgramID
}

// isBuiltinID reports whether key is a program or sysvar the runtime never
// lets a transaction write.
func isBuiltinID(key solana.PublicKey) bool {
	if _, ok := builtins[key]; ok {
		return true
	}
	for _, s := range sysvarIDs {
		if key == s {
			return true
		}
	}
	return key == solana.AddressLookupTableProgramID || key == nativeLoaderID
}
