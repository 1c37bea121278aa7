package squads

import (
	"bytes"
	"slices"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/signer"
)

// TestDiscriminators compares the discriminators with those of the
// program's generated SDK (sdk/multisig/src/generated).
func TestDiscriminators(t *testing.T) {
	for _, c := range []struct {
		name string
		got  [8]byte
		want [8]byte
	}{
		{"Multisig", DiscMultisig, [8]byte{224, 116, 121, 186, 68, 161, 79, 236}},
		{"Proposal", DiscProposal, [8]byte{26, 94, 189, 187, 116, 136, 53, 33}},
		{"VaultTransaction", DiscVaultTransaction, [8]byte{168, 250, 162, 100, 81, 14, 162, 207}},
		{"proposal_approve", IxProposalApprove, [8]byte{144, 37, 164, 136, 188, 216, 42, 248}},
		{"proposal_cancel", IxProposalCancel, [8]byte{27, 42, 127, 237, 38, 163, 84, 203}},
		{"proposal_create", IxProposalCreate, [8]byte{220, 60, 73, 224, 30, 108, 79, 159}},
		{"proposal_reject", IxProposalReject, [8]byte{243, 62, 134, 156, 230, 106, 246, 135}},
		{"vault_transaction_create", IxVaultTransactionCreate, [8]byte{48, 250, 78, 168, 208, 226, 218, 211}},
		{"vault_transaction_execute", IxVaultTransactionExecute, [8]byte{194, 8, 161, 87, 153, 164, 25, 171}},
	} {
		if c.got != c.want {
			t.Errorf("%s: discriminator %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestMessageCompactForm checks the SmallVec form byte by byte: u8 counts
// for keys, instructions, account indexes and lookups, a u16 count for
// instruction data.
func TestMessageCompactForm(t *testing.T) {
	k1, k2, table := solana.PublicKey{1}, solana.PublicKey{2}, solana.PublicKey{3}
	m := &Message{NumSigners: 1, NumWritableSigners: 1, NumWritableNonSigners: 0, AccountKeys: []solana.PublicKey{k1, k2},
		Instructions: []Instruction{{ProgramIDIndex: 1, AccountIndexes: []uint8{0, 2}, Data: []byte{9, 8, 7}}},
		Lookups:      []Lookup{{Table: table, Writable: []uint8{5}, Readonly: nil}}}
	var want []byte
	want = append(want, 1, 1, 0, 2)
	want = append(want, k1[:]...)
	want = append(want, k2[:]...)
	want = append(want, 1, 1, 2, 0, 2, 3, 0, 9, 8, 7)
	want = append(want, 1)
	want = append(want, table[:]...)
	want = append(want, 1, 5, 0)
	if got := m.Encode(); !bytes.Equal(got, want) {
		t.Fatalf("Encode:\n got %v\nwant %v", got, want)
	}
	back, err := DecodeMessage(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Encode(), want) {
		t.Fatalf("DecodeMessage does not read back what Encode wrote")
	}
}

// TestFromSolanaHeader checks that the header counts change meaning (read-only
// counts → writable counts) and that Solana turns them back.
func TestFromSolanaHeader(t *testing.T) {
	keys := []solana.PublicKey{{1}, {2}, {3}, {4}, {5}}
	sm := &solana.Message{Header: solana.MessageHeader{NumRequiredSignatures: 2, NumReadonlySignedAccounts: 1, NumReadonlyUnsignedAccounts: 1},
		AccountKeys: keys, Instructions: []solana.CompiledInstruction{{ProgramIDIndex: 4, Accounts: []uint16{0, 1, 2, 3}, Data: []byte{1}}}}
	m, err := FromSolana(sm)
	if err != nil {
		t.Fatal(err)
	}
	if m.NumSigners != 2 || m.NumWritableSigners != 1 || m.NumWritableNonSigners != 2 {
		t.Fatalf("header %d/%d/%d, want 2/1/2", m.NumSigners, m.NumWritableSigners, m.NumWritableNonSigners)
	}
	wantW := []bool{true, false, true, true, false}
	for i, w := range wantW {
		if m.IsStaticWritable(i) != w {
			t.Errorf("key %d writable %v, want %v", i, !w, w)
		}
	}
	if h := m.Solana(solana.Hash{}).Header; h != sm.Header {
		t.Fatalf("Solana header %+v, want %+v", h, sm.Header)
	}
	bad := *sm
	bad.Instructions = []solana.CompiledInstruction{{ProgramIDIndex: 5}}
	if _, err := FromSolana(&bad); err == nil {
		t.Fatal("an instruction naming a key past the message was accepted")
	}
}

// TestAccountsRoundTrip encodes and decodes each account.
func TestAccountsRoundTrip(t *testing.T) {
	ms := &Multisig{CreateKey: solana.PublicKey{7}, Threshold: 2, TimeLock: 60, TransactionIndex: 4, StaleTransactionIndex: 1, Bump: 254,
		Members: []Member{{solana.PublicKey{1}, Initiate | Execute}, {solana.PublicKey{2}, Vote}}}
	got, err := DecodeMultisig(ms.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := got.Member(solana.PublicKey{1}); !ok || p != Initiate|Execute || got.TransactionIndex != 4 || got.TimeLock != 60 {
		t.Fatalf("multisig read back as %+v", got)
	}
	if _, ok := got.Member(solana.PublicKey{3}); ok {
		t.Fatal("a stranger is a member")
	}
	pr := &Proposal{Multisig: solana.PublicKey{7}, TransactionIndex: 4, Status: StatusApproved, Timestamp: 1700, Approved: []solana.PublicKey{{2}}}
	gp, err := DecodeProposal(pr.Encode(3))
	if err != nil || gp.Status != StatusApproved || gp.Timestamp != 1700 || len(gp.Approved) != 1 {
		t.Fatalf("proposal read back as %+v, %v", gp, err)
	}
	vt := &VaultTransaction{Multisig: solana.PublicKey{7}, Creator: solana.PublicKey{1}, Index: 4,
		Message: &Message{NumSigners: 1, NumWritableSigners: 1, AccountKeys: []solana.PublicKey{{9}, {8}},
			Instructions: []Instruction{{ProgramIDIndex: 1, AccountIndexes: []uint8{0}, Data: []byte{1, 2}}}}}
	gv, err := DecodeVaultTransaction(vt.Encode())
	if err != nil || !bytes.Equal(gv.Message.Encode(), vt.Message.Encode()) || gv.Index != 4 {
		t.Fatalf("vault transaction read back as %+v, %v", gv, err)
	}
	if _, err := DecodeProposal(ms.Encode()); err == nil {
		t.Fatal("a multisig account decoded as a proposal")
	}
}

// TestProposeMessageChecks: the composed proposal passes CheckPropose, and
// one for another creator or message does not.
func TestProposeMessageChecks(t *testing.T) {
	inner := &Message{NumSigners: 1, NumWritableSigners: 1, AccountKeys: []solana.PublicKey{{9}, {8}},
		Instructions: []Instruction{{ProgramIDIndex: 1, AccountIndexes: []uint8{0}, Data: []byte{1}}}}
	p := Propose{Multisig: solana.PublicKey{7}, Index: 5, Creator: solana.PublicKey{1}, Message: inner, Memo: "keeper"}
	raw, err := ProposeMessage(p, solana.Hash{3})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckPropose(raw, p); err != nil {
		t.Fatalf("the composed proposal fails its check: %v", err)
	}
	other := p
	other.Creator = solana.PublicKey{2}
	if err := CheckPropose(raw, other); err == nil {
		t.Fatal("a proposal by another creator passed")
	}
	changed := p
	changed.Message = &Message{NumSigners: 1, NumWritableSigners: 1, AccountKeys: []solana.PublicKey{{9}, {8}},
		Instructions: []Instruction{{ProgramIDIndex: 1, AccountIndexes: []uint8{0}, Data: []byte{2}}}}
	if err := CheckPropose(raw, changed); err == nil {
		t.Fatal("a proposal of another message passed")
	}
}

// TestProposeMessageBudget: keeper's compute budget opens a priced
// proposal, which passes CheckPropose for that budget only: not unpriced,
// and not at another price.
func TestProposeMessageBudget(t *testing.T) {
	inner := &Message{NumSigners: 1, NumWritableSigners: 1, AccountKeys: []solana.PublicKey{{9}, {8}},
		Instructions: []Instruction{{ProgramIDIndex: 1, AccountIndexes: []uint8{0}, Data: []byte{1}}}}
	p := Propose{Multisig: solana.PublicKey{7}, Index: 5, Creator: solana.PublicKey{1}, Message: inner,
		Budget: &signer.Budget{Limit: 40_000, Price: 120_000}}
	raw, err := ProposeMessage(p, solana.Hash{3})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckPropose(raw, p); err != nil {
		t.Fatalf("the priced proposal fails its check: %v", err)
	}
	tx, err := signer.DecodeMessage(raw)
	if err != nil {
		t.Fatal(err)
	}
	if b := tx.Budget(); b.Limit != 40_000 || b.Price != 120_000 || !slices.Equal(b.Instructions, []int{0, 1}) {
		t.Fatalf("budget %+v, want limit 40000 and price 120000 opening the transaction", b)
	}
	unpriced := p
	unpriced.Budget = nil
	if err := CheckPropose(raw, unpriced); err == nil {
		t.Fatal("a priced proposal passed as an unpriced one")
	}
	dearer := p
	dearer.Budget = &signer.Budget{Limit: 40_000, Price: 120_001}
	if err := CheckPropose(raw, dearer); err == nil {
		t.Fatal("a proposal at another price passed")
	}
}

// TestSimulationMessage: the payer is prepended and every index shifts, so
// the instruction names the same accounts.
func TestSimulationMessage(t *testing.T) {
	inner := &Message{NumSigners: 1, NumWritableSigners: 1, NumWritableNonSigners: 1, AccountKeys: []solana.PublicKey{{9}, {8}, {6}},
		Instructions: []Instruction{{ProgramIDIndex: 2, AccountIndexes: []uint8{0, 1}, Data: []byte{1}}}}
	raw, err := SimulationMessage(inner, solana.PublicKey{1}, solana.Hash{3})
	if err != nil {
		t.Fatal(err)
	}
	var m solana.Message
	if err := m.UnmarshalWithDecoder(newDecoder(raw)); err != nil {
		t.Fatal(err)
	}
	if m.Header.NumRequiredSignatures != 2 || m.AccountKeys[0] != (solana.PublicKey{1}) {
		t.Fatalf("header %+v keys %v", m.Header, m.AccountKeys)
	}
	ix := m.Instructions[0]
	w, _ := m.IsWritable(solana.PublicKey{8})
	if m.AccountKeys[ix.ProgramIDIndex] != (solana.PublicKey{6}) || m.AccountKeys[ix.Accounts[0]] != (solana.PublicKey{9}) ||
		!w || !m.IsSigner(solana.PublicKey{9}) {
		t.Fatalf("instruction %+v over keys %v", ix, m.AccountKeys)
	}
}
