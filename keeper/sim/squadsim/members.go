package squadsim

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/squads"
)

// Approve lands member's approval of the proposal at index of multisig,
// signed and paid by member, as a member's wallet would; it fails with
// the transaction's error when the program refuses it.
func Approve(chain *chainsim.Chain, multisig solana.PublicKey, index uint64, member solana.PrivateKey) error {
	return Send(chain, member, squads.ProposalVote(squads.IxProposalApprove, multisig, index, member.PublicKey()))
}

// Reject lands member's rejection of the proposal at index of multisig.
func Reject(chain *chainsim.Chain, multisig solana.PublicKey, index uint64, member solana.PrivateKey) error {
	return Send(chain, member, squads.ProposalVote(squads.IxProposalReject, multisig, index, member.PublicKey()))
}

// Send lands ixs in one transaction signed and paid by key, and returns
// the landed transaction's error, if any.
func Send(chain *chainsim.Chain, key solana.PrivateKey, ixs ...solana.Instruction) error {
	bh, _ := chain.Ledger.LatestBlockhash(rpc.CommitmentProcessed)
	tx, err := solana.NewTransaction(ixs, bh, solana.TransactionPayer(key.PublicKey()))
	if err != nil {
		return fmt.Errorf("squadsim: building a transaction: %w", err)
	}
	if _, err := tx.Sign(func(solana.PublicKey) *solana.PrivateKey { return &key }); err != nil {
		return fmt.Errorf("squadsim: signing: %w", err)
	}
	wire, err := tx.MarshalBinary()
	if err != nil {
		return fmt.Errorf("squadsim: encoding: %w", err)
	}
	sig, err := chain.SendTransaction(wire)
	if err != nil {
		return fmt.Errorf("squadsim: sending: %w", err)
	}
	landed, ok := chain.Ledger.Transaction(sig)
	switch {
	case !ok:
		return fmt.Errorf("squadsim: transaction %s did not land at once", sig)
	case landed.Err != nil:
		return fmt.Errorf("squadsim: transaction %s failed: %w", sig, landed.Err)
	}
	return nil
}
