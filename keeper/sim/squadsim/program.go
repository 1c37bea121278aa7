// Package squadsim models the Squads v4 multisig program
// (github.com/Squads-Protocol/v4, programs/squads_multisig_program) for the
// simulated chain: the Multisig, Proposal and VaultTransaction accounts at
// their PDAs, and the instructions keeper and a multisig's members use:
// vault_transaction_create, proposal_create, proposal_approve,
// proposal_reject, proposal_cancel and vault_transaction_execute, which
// invokes the stored instructions with the vault PDA signing. Layouts come
// from keeper/squads; every check here is the program's, in its order, and
// fails with the program's error code (MultisigError from 6000, Anchor's
// own below 6000).
//
// Where the model simplifies:
//   - multisigs are created by the simulator's setup (Create), not by
//     multisig_create_v2, and config changes (members, threshold, time
//     lock) are made by Configure, which invalidates earlier transactions
//     as the program's config transactions do (stale_transaction_index =
//     transaction_index);
//   - ephemeral signers, batches, spending limits, transaction buffers,
//     config transactions, proposal_activate and the rent-reclaiming close
//     instructions are not modelled (an instruction of them fails with
//     Anchor's InstructionFallbackNotFound);
//   - rent is the rent-exempt minimum of the space the program allocates,
//     with the runtime's default rent (3,480 lamports per byte-year, two
//     years), paid by rent_payer as the program's init does.
package squadsim

import (
	"bytes"
	"fmt"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/squads"
)

// Program is the Squads v4 program model; register it at squads.ProgramID.
type Program struct{}

// Error codes: MultisigError (errors.rs, from 6000) and Anchor's.
const (
	errUnauthorized            = 6004
	errNotAMember              = 6005
	errInvalidTransactionMsg   = 6006
	errStaleProposal           = 6007
	errInvalidProposalStatus   = 6008
	errInvalidTransactionIndex = 6009
	errAlreadyApproved         = 6010
	errAlreadyRejected         = 6011
	errAlreadyCancelled        = 6012
	errInvalidNumberOfAccounts = 6013
	errInvalidAccount          = 6014
	errTimeLockNotReleased     = 6021
	errProtectedAccount        = 6029

	anchorFallbackNotFound    = 101
	anchorDidNotDeserialize   = 102
	anchorConstraintMut       = 2000
	anchorConstraintSeeds     = 2006
	anchorDiscriminatorWrong  = 3002
	anchorNotEnoughKeys       = 3005
	anchorOwnedByWrongProgram = 3007
	anchorNotSigner           = 3010
	anchorNotInitialized      = 3012
)

// fail logs an Anchor-style error line and returns the custom error code.
func fail(x *svm.Exec, code uint32, format string, args ...any) error {
	x.Logf("AnchorError occurred. Error Number: %d. Error Message: %s.", code, fmt.Sprintf(format, args...))
	return svm.CustomError(code)
}

// Execute runs one instruction of the program.
func (Program) Execute(x *svm.Exec, ix svm.Instruction) error {
	if len(ix.Data) < 8 {
		return fail(x, anchorFallbackNotFound, "instruction data shorter than a discriminator")
	}
	d, args := [8]byte(ix.Data[:8]), ix.Data[8:]
	switch d {
	case squads.IxVaultTransactionCreate:
		return vaultTransactionCreate(x, ix.Accounts, args)
	case squads.IxProposalCreate:
		return proposalCreate(x, ix.Accounts, args)
	case squads.IxProposalApprove:
		return proposalVote(x, ix.Accounts, voteApprove)
	case squads.IxProposalReject:
		return proposalVote(x, ix.Accounts, voteReject)
	case squads.IxProposalCancel:
		return proposalVote(x, ix.Accounts, voteCancel)
	case squads.IxVaultTransactionExecute:
		return vaultTransactionExecute(x, ix.Accounts)
	}
	return fail(x, anchorFallbackNotFound, "unknown or unmodelled instruction %x", d)
}

// loadMultisig reads the multisig account meta, checking it as Anchor's
// Account<Multisig> with its seeds constraint does, and mut when asked.
func loadMultisig(x *svm.Exec, m solana.AccountMeta, mut bool) (*squads.Multisig, error) {
	a, err := x.Account(m.PublicKey)
	if err != nil {
		return nil, err
	}
	if err := owned(x, a, "multisig"); err != nil {
		return nil, err
	}
	ms, err := squads.DecodeMultisig(a.Data)
	if err != nil {
		return nil, fail(x, anchorDiscriminatorWrong, "multisig: %v", err)
	}
	if mut && !m.IsWritable {
		return nil, fail(x, anchorConstraintMut, "multisig must be writable")
	}
	if k, _ := squads.MultisigPDA(ms.CreateKey); k != m.PublicKey {
		return nil, fail(x, anchorConstraintSeeds, "multisig is not the PDA of its create key")
	}
	return ms, nil
}

// owned checks that a is an initialized account of the program.
func owned(x *svm.Exec, a svm.Account, what string) error {
	switch {
	case a.IsEmpty():
		return fail(x, anchorNotInitialized, "%s account is not initialized", what)
	case a.Owner != x.ProgramID():
		return fail(x, anchorOwnedByWrongProgram, "%s account is owned by %s", what, a.Owner)
	}
	return nil
}

// initPDA checks the account an Anchor `init` creates: it is want (the
// seeds constraint), writable and still empty (the System program's
// create_account refuses an account in use).
func initPDA(x *svm.Exec, m solana.AccountMeta, want solana.PublicKey, what string) error {
	if m.PublicKey != want {
		return fail(x, anchorConstraintSeeds, "%s is not the PDA its seeds give (%s)", what, want)
	}
	if !m.IsWritable {
		return fail(x, anchorConstraintMut, "%s must be writable", what)
	}
	a, err := x.Account(m.PublicKey)
	if err != nil {
		return err
	}
	if !a.IsEmpty() {
		x.Logf("Allocate: account Address { address: %s, base: None } already in use", m.PublicKey)
		return svm.CustomError(svm.SystemErrAccountAlreadyInUse)
	}
	return nil
}

// create stores data at key, paying its rent from payer.
func create(x *svm.Exec, payer, key solana.PublicKey, data []byte) error {
	if err := x.SetData(key, data); err != nil {
		return err
	}
	return x.TransferLamports(payer, key, squads.RentExempt(len(data)))
}

// signer checks that m signed.
func signer(x *svm.Exec, m solana.AccountMeta, what string) error {
	if !m.IsSigner {
		return fail(x, anchorNotSigner, "%s must sign", what)
	}
	return nil
}

// memberWith checks that key is a member holding one of perms.
func memberWith(x *svm.Exec, ms *squads.Multisig, key solana.PublicKey, perms ...squads.Permission) error {
	p, ok := ms.Member(key)
	if !ok {
		return fail(x, errNotAMember, "%s is not a member", key)
	}
	for _, want := range perms {
		if p.Has(want) {
			return nil
		}
	}
	return fail(x, errUnauthorized, "%s holds %s, not %v", key, p, perms)
}

// insertSorted inserts k into the sorted keys ks; false when it is there.
func insertSorted(ks []solana.PublicKey, k solana.PublicKey) ([]solana.PublicKey, bool) {
	for i, e := range ks {
		switch c := bytes.Compare(e[:], k[:]); {
		case c == 0:
			return ks, false
		case c > 0:
			return append(ks[:i], append([]solana.PublicKey{k}, ks[i:]...)...), true
		}
	}
	return append(ks, k), true
}

// remove removes k from ks.
func remove(ks []solana.PublicKey, k solana.PublicKey) []solana.PublicKey {
	out := ks[:0]
	for _, e := range ks {
		if e != k {
			out = append(out, e)
		}
	}
	return out
}
