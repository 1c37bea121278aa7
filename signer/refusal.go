package signer

import (
	"fmt"
	"strings"

	"github.com/gagliardetto/solana-go"
)

// Rule names one guard rule. Rules are stable strings, fit for metrics labels
// and journal entries.
type Rule string

// The guard's rules. Decoding applies the signature rules; the guard applies
// the rest, in the order listed.
const (
	// RuleUnknownSigner: a signature was supplied for a key that is not a
	// required signer of the message.
	RuleUnknownSigner Rule = "unknown-signer"
	// RuleBadSignature: a supplied signature does not verify over the exact
	// message bytes, or two different ones were supplied for one key.
	RuleBadSignature Rule = "bad-signature"
	// RuleUnknownKind: the action kind is not one the guard knows.
	RuleUnknownKind Rule = "unknown-kind"
	// RuleDuplicateTransaction: one answer holds the same message twice. Our
	// signature over it would be the same, so the chain would take it once
	// and refuse the copy: a sequence that could never land as built.
	RuleDuplicateTransaction Rule = "duplicate-transaction"
	// RuleNotASigner: our key is not a required signer.
	RuleNotASigner Rule = "not-a-signer"
	// RuleFeePayer: someone else pays the fees and that is not allowed.
	RuleFeePayer Rule = "fee-payer"
	// RuleMissingSignature: another required signer has not signed.
	RuleMissingSignature Rule = "missing-signature"
	// RuleUnknownCoSigner: another required signer is not a known co-signer.
	RuleUnknownCoSigner Rule = "unknown-cosigner"
	// RuleDurableNonce: the transaction uses a durable nonce, which is not
	// allowed, or advances a nonce anywhere but in its first instruction.
	RuleDurableNonce Rule = "durable-nonce"
	// RuleProgramNotAllowed: an instruction invokes a program that is not on
	// the kind's allowlist.
	RuleProgramNotAllowed Rule = "program-not-allowed"
	// RuleSystemInstruction: a System instruction uses our wallet in a way no
	// action needs (Assign, Allocate, TransferWithSeed, nonce management, ...),
	// or is garbled.
	RuleSystemInstruction Rule = "system-instruction"
	// RuleSOLTransfer: a System transfer moves SOL from our wallet to an
	// account that is not ours and is not an allowed tip account.
	RuleSOLTransfer Rule = "sol-transfer"
	// RuleLookupAccount: an instruction that spends from our wallet names an
	// account through an address lookup table, so the guard cannot tell
	// whose it is.
	RuleLookupAccount Rule = "lookup-account"
	// RuleTokenOutflow: a Token or Token-2022 transfer, approval or burn with
	// our wallet as authority, in a kind that does not allow it.
	RuleTokenOutflow Rule = "token-outflow"
	// RuleSetAuthority: a token SetAuthority signed by our wallet.
	RuleSetAuthority Rule = "set-authority"
	// RuleCloseAccount: a token CloseAccount by our wallet that sends the
	// rent to someone else.
	RuleCloseAccount Rule = "close-account"
	// RuleTokenInstruction: any other Token, Token-2022 or Associated Token
	// instruction that involves our wallet, or a garbled one.
	RuleTokenInstruction Rule = "token-instruction"
	// RuleComputeBudget: a garbled, unknown or duplicated ComputeBudget
	// instruction.
	RuleComputeBudget Rule = "compute-budget"
	// RuleComputeUnitPrice: the compute-unit price is above the configured cap.
	RuleComputeUnitPrice Rule = "compute-unit-price"
	// RuleTipShape: a tip transaction is not exactly one System transfer from
	// our wallet, which alone signs and pays.
	RuleTipShape Rule = "tip-shape"
	// RuleTipBound: tips exceed the action's maximum tip.
	RuleTipBound Rule = "tip-bound"
	// RuleLamportsBound: fees, tips and rent funded from our wallet, as read
	// from the instructions, exceed the action's lamport bound.
	RuleLamportsBound Rule = "lamports-bound"
	// RuleTokenBound: token amounts leaving our wallet, as read from the
	// instructions, exceed the action's bound for their mint.
	RuleTokenBound Rule = "token-bound"
	// RuleSimulatedLamports: the simulated net SOL outflow exceeds the bound.
	RuleSimulatedLamports Rule = "simulated-lamports"
	// RuleSimulatedTokens: a simulated net token outflow exceeds its bound.
	RuleSimulatedTokens Rule = "simulated-tokens"
	// RuleSimulatedSpendFailed: the simulation failed at an instruction
	// that spends from our wallet under our authority (see [Signer.SpendAt]).
	RuleSimulatedSpendFailed Rule = "simulated-spend-failed"
	// RuleStrandedWallet: the simulation leaves the wallet with lamports
	// above zero but below its rent-exempt minimum, which the runtime's
	// rent rule fails (see [CheckWalletRent]).
	RuleStrandedWallet Rule = "stranded-wallet"
)

// Refusal is the error the guard returns when a rule forbids signing.
type Refusal struct {
	// Rule is the rule that refused.
	Rule Rule
	// Instruction is the index of the offending top-level instruction, or -1
	// when the rule concerns the whole transaction.
	Instruction int
	// Program is the base58 program id of that instruction, or empty.
	Program string
	// Detail says what was found, in words.
	Detail string
}

// Error implements error.
func (r *Refusal) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "signer: refused (rule %s)", r.Rule)
	if r.Instruction >= 0 {
		fmt.Fprintf(&b, ": instruction %d", r.Instruction)
		if r.Program != "" {
			fmt.Fprintf(&b, " (program %s)", r.Program)
		}
	}
	if r.Detail != "" {
		b.WriteString(": ")
		b.WriteString(r.Detail)
	}
	return b.String()
}

// refuse builds a Refusal about the whole transaction.
func refuse(rule Rule, format string, args ...any) *Refusal {
	return &Refusal{Rule: rule, Instruction: -1, Detail: fmt.Sprintf(format, args...)}
}

// refuseIx builds a Refusal about instruction i of program prog.
func refuseIx(rule Rule, i int, prog solana.PublicKey, format string, args ...any) *Refusal {
	return &Refusal{Rule: rule, Instruction: i, Program: prog.String(), Detail: fmt.Sprintf(format, args...)}
}
