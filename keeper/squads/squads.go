// Package squads is keeper's client of the Squads v4 multisig program
// (github.com/Squads-Protocol/v4, programs/squads_multisig_program): its
// program id, PDA seeds, Anchor discriminators, account layouts, the
// TransactionMessage compact form a vault transaction carries, and the
// instructions keeper sends (vault_transaction_create, proposal_create,
// vault_transaction_execute) or a test member sends (proposal_approve,
// proposal_reject). Every layout here is the program's own; the simulator's
// model of the program (keeper/sim/squadsim) uses the same codecs.
package squads

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// ProgramID is the Squads v4 program on mainnet and devnet (lib.rs declare_id).
var ProgramID = solana.MustPublicKeyFromBase58("SQDS4ep65T869zMMBKyuUq6aD6EgTu8psMjkvj52pCf")

// Seeds of the program's PDAs (state/seeds.rs).
var (
	seedPrefix      = []byte("multisig")
	seedMultisig    = []byte("multisig")
	seedTransaction = []byte("transaction")
	seedProposal    = []byte("proposal")
	seedVault       = []byte("vault")
)

// Permission is one bit of a member's permissions mask (state/multisig.rs).
type Permission uint8

// The member permissions.
const (
	Initiate Permission = 1 << 0
	Vote     Permission = 1 << 1
	Execute  Permission = 1 << 2
)

// Has reports whether the mask p holds every bit of q.
func (p Permission) Has(q Permission) bool { return p&q == q }

// String names the bits of p, e.g. "initiate+execute".
func (p Permission) String() string {
	s := ""
	for _, b := range []struct {
		bit  Permission
		name string
	}{{Initiate, "initiate"}, {Vote, "vote"}, {Execute, "execute"}} {
		if p.Has(b.bit) {
			if s != "" {
				s += "+"
			}
			s += b.name
		}
	}
	if s == "" {
		return "none"
	}
	return s
}

// MultisigPDA is the multisig account created with createKey:
// ["multisig", "multisig", create_key].
func MultisigPDA(createKey solana.PublicKey) (solana.PublicKey, uint8) {
	return mustFind(seedPrefix, seedMultisig, createKey[:])
}

// TransactionPDA is the vault transaction at index of multisig:
// ["multisig", multisig, "transaction", index u64 LE].
func TransactionPDA(multisig solana.PublicKey, index uint64) (solana.PublicKey, uint8) {
	return mustFind(seedPrefix, multisig[:], seedTransaction, le64(index))
}

// ProposalPDA is the proposal of the transaction at index of multisig:
// ["multisig", multisig, "transaction", index u64 LE, "proposal"].
func ProposalPDA(multisig solana.PublicKey, index uint64) (solana.PublicKey, uint8) {
	return mustFind(seedPrefix, multisig[:], seedTransaction, le64(index), seedProposal)
}

// VaultPDA is vault vaultIndex of multisig: ["multisig", multisig, "vault",
// vault_index u8]. It is the authority a vault transaction acts as.
func VaultPDA(multisig solana.PublicKey, vaultIndex uint8) (solana.PublicKey, uint8) {
	return mustFind(VaultSeeds(multisig, vaultIndex)...)
}

// VaultSeeds are the seeds of vault vaultIndex of multisig, without bump.
func VaultSeeds(multisig solana.PublicKey, vaultIndex uint8) [][]byte {
	return [][]byte{seedPrefix, multisig[:], seedVault, {vaultIndex}}
}

// mustFind derives a PDA of the program; a bump always exists for these
// seed lengths, so failure is a programming error.
func mustFind(seeds ...[]byte) (solana.PublicKey, uint8) {
	k, bump, err := solana.FindProgramAddress(seeds, ProgramID)
	if err != nil {
		panic(fmt.Sprintf("squads: no program address for seeds %q: %v", seeds, err))
	}
	return k, bump
}

func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// discriminator is Anchor's first 8 bytes of sha256(namespace:name).
func discriminator(namespace, name string) [8]byte {
	h := sha256.Sum256([]byte(namespace + ":" + name))
	var d [8]byte
	copy(d[:], h[:8])
	return d
}

// Account and instruction discriminators of the program.
var (
	DiscMultisig         = discriminator("account", "Multisig")
	DiscProposal         = discriminator("account", "Proposal")
	DiscVaultTransaction = discriminator("account", "VaultTransaction")

	IxVaultTransactionCreate  = discriminator("global", "vault_transaction_create")
	IxProposalCreate          = discriminator("global", "proposal_create")
	IxProposalApprove         = discriminator("global", "proposal_approve")
	IxProposalReject          = discriminator("global", "proposal_reject")
	IxProposalCancel          = discriminator("global", "proposal_cancel")
	IxVaultTransactionExecute = discriminator("global", "vault_transaction_execute")
)

// AppLink is the page of the vault transaction at index of multisig in the
// Squads app at base (such as https://app.squads.so). The path form is an
// assumption (docs/assumptions.md): the app documents no deep-link format.
func AppLink(base string, multisig solana.PublicKey, index uint64) string {
	tx, _ := TransactionPDA(multisig, index)
	return fmt.Sprintf("%s/squads/%s/transactions/%s", base, multisig, tx)
}
