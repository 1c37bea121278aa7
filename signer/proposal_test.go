package signer

import (
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
)

// TestSignProposalShape: only a transaction of our wallet addressing the
// multisig program alone is signed.
func TestSignProposalShape(t *testing.T) {
	s := fixtureSigner(t)
	program := solana.PublicKey{7}
	msg := func(ixs ...solana.Instruction) []byte {
		tx, err := solana.NewTransaction(ixs, solana.Hash{1}, solana.TransactionPayer(s.PublicKey()))
		if err != nil {
			t.Fatal(err)
		}
		b, err := tx.Message.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ours := solana.NewInstruction(program, solana.AccountMetaSlice{solana.Meta(s.PublicKey()).SIGNER().WRITE()}, []byte{1})
	if _, err := s.SignProposal(msg(ours), program); err != nil {
		t.Fatalf("a proposal transaction was refused: %v", err)
	}
	drain := system.NewTransferInstruction(1, s.PublicKey(), solana.PublicKey{9}).Build()
	var r *Refusal
	if _, err := s.SignProposal(msg(ours, drain), program); !errors.As(err, &r) || r.Rule != RuleProposalShape {
		t.Fatalf("a proposal transaction with a transfer: %v, want %s", err, RuleProposalShape)
	}
}

// TestCheckAsGuardsTheVault: the inner message is guarded with the vault as
// the wallet: a transfer out of the vault is refused as it would be out of
// our wallet, and the vault must be a signer.
func TestCheckAsGuardsTheVault(t *testing.T) {
	s := fixtureSigner(t)
	vault := solana.PublicKey{5}
	tx := func(payer solana.PublicKey, ixs ...solana.Instruction) *Tx {
		st, err := solana.NewTransaction(ixs, solana.Hash{1}, solana.TransactionPayer(payer))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := st.Message.MarshalBinary()
		d, err := DecodeMessage(b)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	drain := system.NewTransferInstruction(1_000, vault, solana.PublicKey{9}).Build()
	var r *Refusal
	if err := s.CheckAs(vault, []*Tx{tx(vault, drain)}, KindStrategyUpdate, Bounds{MaxLamports: 1_000_000}); !errors.As(err, &r) {
		t.Fatalf("a transfer out of the vault: %v, want a refusal", err)
	}
	if err := s.CheckAs(solana.PublicKey{6}, []*Tx{tx(vault, drain)}, KindStrategyUpdate, Bounds{MaxLamports: 1_000_000}); !errors.As(err, &r) || r.Rule != RuleNotASigner {
		t.Fatalf("a message the authority does not sign: %v, want %s", err, RuleNotASigner)
	}
}
