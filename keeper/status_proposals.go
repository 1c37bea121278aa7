package keeper

import (
	"context"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/squads"
)

// ProposalStatus is one open Squads proposal, in /status and `keeper plan`.
type ProposalStatus struct {
	Policy        string `json:"policy"`
	Target        string `json:"target"`
	Multisig      string `json:"multisig"`
	Index         uint64 `json:"index"`
	State         string `json:"state"`
	Approvers     string `json:"approvers,omitempty"`
	WaitedSeconds int64  `json:"waited_seconds"`
	Link          string `json:"link,omitempty"`
}

// openProposals lists the proposals keeper made (for policy; "": every
// policy's) that are not settled, with how long each has waited; none when
// the journal cannot be read in a second.
func (k *Keeper) openProposals(policy string) []ProposalStatus {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	open, err := k.journal.Proposals(ctx, journal.ProposalFilter{Open: true, Policy: policy})
	if err != nil {
		k.logger.Warn("Cannot read the open proposals for /status", "err", err)
		return nil
	}
	out := make([]ProposalStatus, 0, len(open))
	for _, p := range open {
		s := ProposalStatus{Policy: p.Policy, Target: p.Target, Multisig: p.Multisig, Index: p.Index, State: string(p.State),
			Approvers: p.Approvers, WaitedSeconds: int64(k.now().Sub(p.CreatedAt) / time.Second)}
		if ms, err := solana.PublicKeyFromBase58(p.Multisig); err == nil {
			s.Link = squads.AppLink(k.cfg.Squads.AppBase(), ms, p.Index)
		}
		out = append(out, s)
	}
	return out
}
