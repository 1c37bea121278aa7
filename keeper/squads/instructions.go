package squads

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// CreateArgs are vault_transaction_create's arguments
// (VaultTransactionCreateArgs).
type CreateArgs struct {
	VaultIndex       uint8
	EphemeralSigners uint8
	// Message is the compact TransactionMessage (see Message.Encode).
	Message []byte
	Memo    string
}

// VaultTransactionCreate is the instruction that stores msg as the vault
// transaction at index (the multisig's transaction_index + 1) for creator,
// rent paid by payer. Accounts: multisig (w), transaction (w), creator
// (s), rent_payer (w, s), system_program.
func VaultTransactionCreate(multisig solana.PublicKey, index uint64, creator, payer solana.PublicKey, a CreateArgs) solana.Instruction {
	tx, _ := TransactionPDA(multisig, index)
	var w writer
	w.disc(IxVaultTransactionCreate)
	w.u8(a.VaultIndex)
	w.u8(a.EphemeralSigners)
	w.bytesU32(a.Message)
	w.optString(a.Memo)
	return ix(w.b, meta(multisig, false, true), meta(tx, false, true), meta(creator, true, false),
		meta(payer, true, true), meta(solana.SystemProgramID, false, false))
}

// DecodeCreateArgs reads vault_transaction_create's data after the
// discriminator.
func DecodeCreateArgs(data []byte) (CreateArgs, error) {
	r := &reader{b: data}
	a := CreateArgs{VaultIndex: r.u8(), EphemeralSigners: r.u8(), Message: r.bytesU32(), Memo: r.optString()}
	if r.err != nil {
		return a, fmt.Errorf("squads: vault_transaction_create arguments: %w", r.err)
	}
	return a, nil
}

// ProposalCreate is the instruction that opens the proposal of the
// transaction at index (active, not a draft). Accounts: multisig,
// proposal (w), creator (s), rent_payer (w, s), system_program.
func ProposalCreate(multisig solana.PublicKey, index uint64, creator, payer solana.PublicKey) solana.Instruction {
	p, _ := ProposalPDA(multisig, index)
	var w writer
	w.disc(IxProposalCreate)
	w.u64(index)
	w.boolean(false)
	return ix(w.b, meta(multisig, false, false), meta(p, false, true), meta(creator, true, false),
		meta(payer, true, true), meta(solana.SystemProgramID, false, false))
}

// DecodeProposalCreateArgs reads proposal_create's data after the
// discriminator: the transaction index and whether it is a draft.
func DecodeProposalCreateArgs(data []byte) (index uint64, draft bool, err error) {
	r := &reader{b: data}
	index = r.u64()
	switch r.u8() {
	case 0:
	case 1:
		draft = true
	default:
		r.fail("draft is not a bool")
	}
	if r.err != nil {
		return 0, false, fmt.Errorf("squads: proposal_create arguments: %w", r.err)
	}
	return index, draft, nil
}

// ProposalVote is proposal_approve, proposal_reject or proposal_cancel
// (disc) by member on the proposal at index. Accounts: multisig, member
// (w, s), proposal (w).
func ProposalVote(disc [8]byte, multisig solana.PublicKey, index uint64, member solana.PublicKey) solana.Instruction {
	p, _ := ProposalPDA(multisig, index)
	var w writer
	w.disc(disc)
	w.optString("")
	return ix(w.b, meta(multisig, false, false), meta(member, true, true), meta(p, false, true))
}

// ExecuteAccounts are the remaining accounts of vault_transaction_execute
// for msg: its lookup tables, then every account the message names: its
// static keys with the message's writable flags, signers only where signs
// holds them (the vault signs by seeds; any other signer of the message
// must sign the execute transaction itself), then, lookup by lookup, the
// writable and the read-only entries of each table (tables holds each
// table's addresses, as read from chain).
func ExecuteAccounts(msg *Message, tables map[solana.PublicKey][]solana.PublicKey, signs map[solana.PublicKey]bool) ([]*solana.AccountMeta, error) {
	var out []*solana.AccountMeta
	for _, l := range msg.Lookups {
		out = append(out, meta(l.Table, false, false))
	}
	for i, k := range msg.AccountKeys {
		out = append(out, meta(k, msg.IsSigner(i) && signs[k], msg.IsStaticWritable(i)))
	}
	for _, l := range msg.Lookups {
		addrs, ok := tables[l.Table]
		if !ok {
			return nil, fmt.Errorf("squads: lookup table %s not given", l.Table)
		}
		for pass, idxs := range [][]uint8{l.Writable, l.Readonly} {
			for _, i := range idxs {
				if int(i) >= len(addrs) {
					return nil, fmt.Errorf("squads: lookup table %s has no entry %d", l.Table, i)
				}
				out = append(out, meta(addrs[i], false, pass == 0))
			}
		}
	}
	return out, nil
}

// VaultTransactionExecute is the instruction that executes the approved
// transaction at index as member; remaining are ExecuteAccounts.
// Accounts: multisig, proposal (w), transaction, member (s), remaining.
func VaultTransactionExecute(multisig solana.PublicKey, index uint64, member solana.PublicKey, remaining []*solana.AccountMeta) solana.Instruction {
	p, _ := ProposalPDA(multisig, index)
	tx, _ := TransactionPDA(multisig, index)
	accts := append([]*solana.AccountMeta{meta(multisig, false, false), meta(p, false, true), meta(tx, false, false),
		meta(member, true, false)}, remaining...)
	return ix(IxVaultTransactionExecute[:], accts...)
}

func meta(k solana.PublicKey, signer, writable bool) *solana.AccountMeta {
	return &solana.AccountMeta{PublicKey: k, IsSigner: signer, IsWritable: writable}
}

func ix(data []byte, accts ...*solana.AccountMeta) solana.Instruction {
	return solana.NewInstruction(ProgramID, accts, append([]byte(nil), data...))
}
