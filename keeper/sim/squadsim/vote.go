package squadsim

import (
	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/squads"
)

// vote is one of the ProposalVote instructions.
type vote int

const (
	voteApprove vote = iota
	voteReject
	voteCancel
)

// proposalVote is proposal_approve, proposal_reject and proposal_cancel:
// accounts multisig, member (w, s), proposal (w). The member needs Vote.
// Approve and reject need an active proposal that is not stale; cancel
// needs an approved one (stale or not). A threshold of approvals approves
// it, cutoff (voters − threshold + 1) rejections reject it, a threshold of
// cancellations cancels it.
func proposalVote(x *svm.Exec, a []solana.AccountMeta, v vote) error {
	if len(a) < 3 {
		return fail(x, anchorNotEnoughKeys, "a proposal vote takes 3 accounts")
	}
	ms, err := loadMultisig(x, a[0], false)
	if err != nil {
		return err
	}
	if err := signer(x, a[1], "member"); err != nil {
		return err
	}
	p, err := loadProposal(x, a[0].PublicKey, a[2], true)
	if err != nil {
		return err
	}
	member := a[1].PublicKey
	if err := memberWith(x, ms, member, squads.Vote); err != nil {
		return err
	}
	switch {
	case v != voteCancel && p.Status != squads.StatusActive:
		return fail(x, errInvalidProposalStatus, "proposal is %s, not active", p.Status)
	case v != voteCancel && p.TransactionIndex <= ms.StaleTransactionIndex:
		return fail(x, errStaleProposal, "proposal %d is stale", p.TransactionIndex)
	case v == voteCancel && p.Status != squads.StatusApproved:
		return fail(x, errInvalidProposalStatus, "proposal is %s, not approved", p.Status)
	}
	now := x.Block().Time.Unix()
	var ok bool
	switch v {
	case voteApprove:
		p.Rejected = remove(p.Rejected, member)
		if p.Approved, ok = insertSorted(p.Approved, member); !ok {
			return fail(x, errAlreadyApproved, "%s already approved", member)
		}
		if len(p.Approved) >= int(ms.Threshold) {
			p.Status, p.Timestamp = squads.StatusApproved, now
		}
	case voteReject:
		p.Approved = remove(p.Approved, member)
		if p.Rejected, ok = insertSorted(p.Rejected, member); !ok {
			return fail(x, errAlreadyRejected, "%s already rejected", member)
		}
		if len(p.Rejected) >= ms.Cutoff() {
			p.Status, p.Timestamp = squads.StatusRejected, now
		}
	case voteCancel:
		kept := p.Cancelled[:0]
		for _, k := range p.Cancelled {
			if _, member := ms.Member(k); member {
				kept = append(kept, k)
			}
		}
		if p.Cancelled, ok = insertSorted(kept, member); !ok {
			return fail(x, errAlreadyCancelled, "%s already cancelled", member)
		}
		if len(p.Cancelled) >= int(ms.Threshold) {
			p.Status, p.Timestamp = squads.StatusCancelled, now
		}
	}
	return x.SetData(a[2].PublicKey, p.Encode(len(ms.Members)))
}

// loadProposal reads the proposal at m, checking its seeds against
// multisig and, when mut, that it is writable.
func loadProposal(x *svm.Exec, multisig solana.PublicKey, m solana.AccountMeta, mut bool) (*squads.Proposal, error) {
	a, err := x.Account(m.PublicKey)
	if err != nil {
		return nil, err
	}
	if err := owned(x, a, "proposal"); err != nil {
		return nil, err
	}
	p, err := squads.DecodeProposal(a.Data)
	if err != nil {
		return nil, fail(x, anchorDiscriminatorWrong, "proposal: %v", err)
	}
	if mut && !m.IsWritable {
		return nil, fail(x, anchorConstraintMut, "proposal must be writable")
	}
	if k, _ := squads.ProposalPDA(multisig, p.TransactionIndex); k != m.PublicKey {
		return nil, fail(x, anchorConstraintSeeds, "proposal is not the PDA of its multisig and index")
	}
	return p, nil
}
