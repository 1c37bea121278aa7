package signer

import (
	"errors"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
)

// messageOf compiles ixs into a message paid by payer.
func messageOf(t *testing.T, payer solana.PublicKey, ixs ...solana.Instruction) []byte {
	t.Helper()
	tx, err := solana.NewTransaction(ixs, solana.Hash{1}, solana.TransactionPayer(payer))
	if err != nil {
		t.Fatal(err)
	}
	b, err := tx.Message.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSignProposalShape: only a transaction of our wallet addressing the
// multisig program alone is signed.
func TestSignProposalShape(t *testing.T) {
	s := fixtureSigner(t)
	program := solana.PublicKey{7}
	msg := func(ixs ...solana.Instruction) []byte { return messageOf(t, s.PublicKey(), ixs...) }
	ours := solana.NewInstruction(program, solana.AccountMetaSlice{solana.Meta(s.PublicKey()).SIGNER().WRITE()}, []byte{1})
	if _, err := s.SignProposal(msg(ours), program, 0); err != nil {
		t.Fatalf("a proposal transaction was refused: %v", err)
	}
	drain := system.NewTransferInstruction(1, s.PublicKey(), solana.PublicKey{9}).Build()
	var r *Refusal
	if _, err := s.SignProposal(msg(ours, drain), program, 0); !errors.As(err, &r) || r.Rule != RuleProposalShape {
		t.Fatalf("a proposal transaction with a transfer: %v, want %s", err, RuleProposalShape)
	}
}

// TestSignProposalBudget: keeper's compute budget may open a proposal
// transaction, SetComputeUnitLimit then SetComputeUnitPrice, its price
// within the guard's cap lowered by the caller's; a ComputeBudget
// instruction anywhere else, in another order, alone, or priced above the
// cap is refused.
func TestSignProposalBudget(t *testing.T) {
	s := fixtureSigner(t)
	program := solana.PublicKey{7}
	ours := solana.NewInstruction(program, solana.AccountMetaSlice{solana.Meta(s.PublicKey()).SIGNER().WRITE()}, []byte{1})
	budget := func(data []byte) solana.Instruction {
		return solana.NewInstruction(solana.ComputeBudget, solana.AccountMetaSlice{}, data)
	}
	limit, price := budget(SetUnitLimitData(50_000)), budget(SetUnitPriceData(100_000))
	msg := func(ixs ...solana.Instruction) []byte { return messageOf(t, s.PublicKey(), ixs...) }
	if _, err := s.SignProposal(msg(limit, price, ours, ours), program, 100_000); err != nil {
		t.Fatalf("a priced proposal transaction was refused: %v", err)
	}
	for _, c := range []struct {
		name string
		ixs  []solana.Instruction
		cap  uint64
		rule Rule
	}{
		{"budget after the multisig instruction", []solana.Instruction{ours, limit, price}, 0, RuleProposalShape},
		{"budget between multisig instructions", []solana.Instruction{limit, price, ours, budget(SetUnitPriceData(1)), ours}, 0, RuleProposalShape},
		{"price before limit", []solana.Instruction{price, limit, ours}, 0, RuleProposalShape},
		{"price alone", []solana.Instruction{price, ours}, 0, RuleProposalShape},
		{"limit alone", []solana.Instruction{limit, ours}, 0, RuleProposalShape},
		{"heap frame", []solana.Instruction{limit, budget([]byte{1, 0, 0, 4, 0}), ours}, 0, RuleProposalShape},
		{"budget only", []solana.Instruction{limit, price}, 0, RuleProposalShape},
		{"limit over the runtime's", []solana.Instruction{budget(SetUnitLimitData(MaxComputeUnitLimit + 1)), price, ours}, 0, RuleComputeBudget},
		{"price over the caller's cap", []solana.Instruction{limit, price, ours}, 99_999, RuleComputeUnitPrice},
		{"price over the guard's cap", []solana.Instruction{limit, budget(SetUnitPriceData(DefaultMaxComputeUnitPrice + 1)), ours}, 0, RuleComputeUnitPrice},
	} {
		var r *Refusal
		if _, err := s.SignProposal(msg(c.ixs...), program, c.cap); !errors.As(err, &r) || r.Rule != c.rule {
			t.Errorf("%s: %v, want %s", c.name, err, c.rule)
		}
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
