package policies

import (
	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/squads"
)

// Authority says who holds the authority a policy's actions need. Empty,
// it is keeper's own key, which signs. With Squads set, the authority is a
// Squads v4 multisig's vault: keeper has the market build for the vault,
// proposes the answer as a vault transaction, and executes it once the
// members approved (docs/use-cases/vault-multisig.md).
type Authority struct {
	Squads *SquadsAuthority `yaml:"squads"`
}

// SquadsAuthority names a Squads v4 multisig and the vault of it that holds
// the authority.
type SquadsAuthority struct {
	// Multisig is the multisig account's address.
	Multisig string `yaml:"multisig"`
	// VaultIndex is the vault's index (0 for the default vault).
	VaultIndex uint8 `yaml:"vault_index"`
}

// MultisigKey returns the multisig's address, decoded; the parser refused a
// policy whose multisig is not an address (Authority.check).
func (s *SquadsAuthority) MultisigKey() solana.PublicKey {
	k, _ := solana.PublicKeyFromBase58(s.Multisig)
	return k
}

// Vault returns the address of the multisig's vault: the authority the
// market builds for.
func (s *SquadsAuthority) Vault() solana.PublicKey {
	v, _ := squads.VaultPDA(s.MultisigKey(), s.VaultIndex)
	return v
}

// Address returns the authority's address: the vault of a multisig, else
// wallet.
func (a Authority) Address(wallet string) string {
	if a.Squads == nil {
		return wallet
	}
	return a.Squads.Vault().String()
}

// check validates the authority of a policy of kind k: a multisig address
// in base58, for the vault-operator kinds only (the other kinds act for a
// borrower or depositor wallet, which signs).
func (a *Authority) check(b *builder, k Kind) {
	if a.Squads == nil {
		if b.has("authority") {
			b.fail([]any{"authority"}, "authority must name squads: {multisig: ADDRESS, vault_index: N}")
		}
		return
	}
	if k != KindStrategyUpdate && k != KindStrategyWithdraw {
		b.fail([]any{"authority"}, "authority applies to strategy-update and strategy-withdraw only")
		return
	}
	if _, err := solana.PublicKeyFromBase58(a.Squads.Multisig); err != nil {
		b.fail([]any{"authority", "squads", "multisig"}, "authority.squads.multisig %q is not a base58 address", a.Squads.Multisig)
	}
}
