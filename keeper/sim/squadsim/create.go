package squadsim

import (
	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/squads"
)

// vaultTransactionCreate is vault_transaction_create: accounts multisig
// (w), transaction (w, init at index transaction_index + 1), creator (s),
// rent_payer (w, s), system_program. The creator must be a member with
// Initiate; the message must be a valid TransactionMessage. The
// multisig's transaction_index moves to the new index.
func vaultTransactionCreate(x *svm.Exec, a []solana.AccountMeta, data []byte) error {
	if len(a) < 5 {
		return fail(x, anchorNotEnoughKeys, "vault_transaction_create takes 5 accounts")
	}
	args, err := squads.DecodeCreateArgs(data)
	if err != nil {
		return fail(x, anchorDidNotDeserialize, "%v", err)
	}
	ms, err := loadMultisig(x, a[0], true)
	if err != nil {
		return err
	}
	index := ms.TransactionIndex + 1
	txKey, txBump := squads.TransactionPDA(a[0].PublicKey, index)
	if err := initPDA(x, a[1], txKey, "transaction"); err != nil {
		return err
	}
	if err := signer(x, a[2], "creator"); err != nil {
		return err
	}
	if err := payer(x, a[3]); err != nil {
		return err
	}
	if err := memberWith(x, ms, a[2].PublicKey, squads.Initiate); err != nil {
		return err
	}
	if args.EphemeralSigners > 0 {
		return fail(x, errInvalidTransactionMsg, "ephemeral signers are not modelled by the simulator")
	}
	msg, err := squads.DecodeMessage(args.Message)
	if err != nil {
		return fail(x, anchorDidNotDeserialize, "%v", err)
	}
	if err := msg.Validate(); err != nil {
		return fail(x, errInvalidTransactionMsg, "%v", err)
	}
	_, vaultBump := squads.VaultPDA(a[0].PublicKey, args.VaultIndex)
	vt := &squads.VaultTransaction{Multisig: a[0].PublicKey, Creator: a[2].PublicKey, Index: index, Bump: txBump,
		VaultIndex: args.VaultIndex, VaultBump: vaultBump, EphemeralSignerBumps: []byte{}, Message: msg}
	if err := create(x, a[3].PublicKey, txKey, vt.Encode()); err != nil {
		return err
	}
	ms.TransactionIndex = index
	x.Logf("transaction index: %d", index)
	return x.SetData(a[0].PublicKey, ms.Encode())
}

// proposalCreate is proposal_create: accounts multisig, proposal (w, init
// at the given index), creator (s), rent_payer (w, s), system_program. The
// index must exist and not be stale; the creator needs Initiate or Vote.
func proposalCreate(x *svm.Exec, a []solana.AccountMeta, data []byte) error {
	if len(a) < 5 {
		return fail(x, anchorNotEnoughKeys, "proposal_create takes 5 accounts")
	}
	index, draft, err := squads.DecodeProposalCreateArgs(data)
	if err != nil {
		return fail(x, anchorDidNotDeserialize, "%v", err)
	}
	ms, err := loadMultisig(x, a[0], false)
	if err != nil {
		return err
	}
	pKey, pBump := squads.ProposalPDA(a[0].PublicKey, index)
	if err := initPDA(x, a[1], pKey, "proposal"); err != nil {
		return err
	}
	if err := signer(x, a[2], "creator"); err != nil {
		return err
	}
	if err := payer(x, a[3]); err != nil {
		return err
	}
	switch {
	case index > ms.TransactionIndex:
		return fail(x, errInvalidTransactionIndex, "transaction %d does not exist (last %d)", index, ms.TransactionIndex)
	case index <= ms.StaleTransactionIndex:
		return fail(x, errStaleProposal, "transaction %d is stale (stale index %d)", index, ms.StaleTransactionIndex)
	}
	if err := memberWith(x, ms, a[2].PublicKey, squads.Initiate, squads.Vote); err != nil {
		return err
	}
	p := &squads.Proposal{Multisig: a[0].PublicKey, TransactionIndex: index, Status: squads.StatusActive,
		Timestamp: x.Block().Time.Unix(), Bump: pBump}
	if draft {
		p.Status = squads.StatusDraft
	}
	return create(x, a[3].PublicKey, pKey, p.Encode(len(ms.Members)))
}

// payer checks the rent payer: a writable signer.
func payer(x *svm.Exec, m solana.AccountMeta) error {
	if err := signer(x, m, "rent_payer"); err != nil {
		return err
	}
	if !m.IsWritable {
		return fail(x, anchorConstraintMut, "rent_payer must be writable")
	}
	return nil
}
