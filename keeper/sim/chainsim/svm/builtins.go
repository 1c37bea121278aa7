package svm

import "github.com/gagliardetto/solana-go"

// Program ids the chain knows besides those in solana-go.
var (
	MemoV1ProgramID     = solana.MustPublicKeyFromBase58("Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo")
	nativeLoaderID      = solana.MustPublicKeyFromBase58("NativeLoader1111111111111111111111111111111")
	RecentBlockhashesID = solana.MustPublicKeyFromBase58("SysvarRecentB1ockHashes11111111111111111111")
	sysvarIDs           = []solana.PublicKey{
		RecentBlockhashesID,
		solana.MustPublicKeyFromBase58("SysvarC1ock11111111111111111111111111111111"),
		solana.MustPublicKeyFromBase58("SysvarRent111111111111111111111111111111111"),
		solana.MustPublicKeyFromBase58("Sysvar1nstructions1111111111111111111111111"),
	}
)

// builtinFunc is the body of a built-in program.
type builtinFunc func(x *Exec, ix Instruction) error

// builtin is one of the programs the chain implements itself.
type builtin struct {
	Run    builtinFunc
	Loader solana.PublicKey // owner of the program account
	Native bool             // a native runtime program: 3,000 default units, no "consumed" log
}

// Builtins maps program ids to the chain's own programs.
var Builtins = map[solana.PublicKey]builtin{
	solana.SystemProgramID:                    {Run: runSystem, Loader: nativeLoaderID, Native: true},
	solana.ComputeBudget:                      {Run: runComputeBudget, Loader: nativeLoaderID, Native: true},
	solana.TokenProgramID:                     {Run: runToken, Loader: solana.BPFLoaderProgramID},
	solana.SPLAssociatedTokenAccountProgramID: {Run: runATA, Loader: solana.BPFLoaderProgramID},
	solana.MemoProgramID:                      {Run: runMemo, Loader: solana.BPFLoaderProgramID},
	MemoV1ProgramID:                           {Run: runMemo, Loader: solana.BPFLoaderDeprecatedProgramID},
}

// isNativeBuiltin reports whether key is a native runtime program, whose
// instructions get the small default compute-unit limit.
func isNativeBuiltin(key solana.PublicKey) bool {
	b, ok := Builtins[key]
	return ok && b.Native || key == solana.AddressLookupTableProgramID
}

// isBuiltinID reports whether key is a program or sysvar the runtime never
// lets a transaction write.
func isBuiltinID(key solana.PublicKey) bool {
	if _, ok := Builtins[key]; ok {
		return true
	}
	for _, s := range sysvarIDs {
		if key == s {
			return true
		}
	}
	return key == solana.AddressLookupTableProgramID || key == nativeLoaderID
}
