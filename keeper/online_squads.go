package keeper

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/keeper/squads"
	"github.com/keeper-project/keeper/policies"
)

// CheckSquadsMembers is the part of `keeper check --online` for the
// policies whose authority is a Squads multisig: the multisig exists, and
// keeper's key is a member with Initiate (an error otherwise). It warns
// when the key lacks Execute (approved proposals then wait for a member
// to execute them) and, loudly, when it holds Vote: keeper could then
// approve what it proposes, which is not least privilege.
func CheckSquadsMembers(ctx context.Context, cfg *config.Config, ps []*policies.Policy) (warnings []string, err error) {
	seen := map[string]bool{}
	var todo []*policies.Policy
	for _, p := range ps {
		if p.Enabled && p.Authority.Squads != nil && !seen[p.Authority.Squads.Multisig] {
			seen[p.Authority.Squads.Multisig] = true
			todo = append(todo, p)
		}
	}
	if len(todo) == 0 {
		return nil, nil
	}
	c, err := chain.New(chainOptions(cfg, NewMetrics(nil), slog.New(slog.DiscardHandler)))
	if err != nil {
		return nil, fmt.Errorf("chain client: %w", err)
	}
	defer c.Close()
	wallet, err := WalletOf(cfg)
	if err != nil {
		return nil, err
	}
	var bad OnlineError
	for _, p := range todo {
		w, problem := checkMember(ctx, c, wallet, p)
		warnings = append(warnings, w...)
		if problem != "" {
			bad.Problems = append(bad.Problems, problem)
		}
	}
	if len(bad.Problems) > 0 {
		return warnings, &bad
	}
	return warnings, nil
}

// checkMember checks wallet's membership of p's multisig.
func checkMember(ctx context.Context, c *chain.Client, wallet solana.PublicKey, p *policies.Policy) (warnings []string, problem string) {
	ms := p.Authority.Squads.Multisig
	where := fmt.Sprintf("policy %s: authority.squads.multisig %s", p.Name, ms)
	data, err := c.MultipleAccounts(ctx, []solana.PublicKey{p.Authority.Squads.MultisigKey()})
	if err != nil {
		return nil, fmt.Sprintf("%s: cannot read it: %v", where, err)
	}
	if len(data) != 1 || data[0] == nil {
		return nil, where + ": no such account"
	}
	m, err := squads.DecodeMultisig(data[0])
	if err != nil {
		return nil, fmt.Sprintf("%s: not a Squads v4 multisig: %v", where, err)
	}
	perm, member := m.Member(wallet)
	switch {
	case !member:
		return nil, fmt.Sprintf("%s: keeper's key %s is not a member; add it with Initiate and Execute", where, wallet)
	case !perm.Has(squads.Initiate):
		return nil, fmt.Sprintf("%s: keeper's key %s holds %s, not Initiate: it cannot propose", where, wallet, perm)
	}
	if !perm.Has(squads.Execute) {
		warnings = append(warnings, fmt.Sprintf("%s: keeper's key holds no Execute: a member must execute what the others approve", where))
	}
	if perm.Has(squads.Vote) {
		warnings = append(warnings, fmt.Sprintf("%s: KEEPER'S KEY HOLDS VOTE: it can approve its own proposals (threshold %d); "+
			"this is not least privilege: remove Vote from %s", where, m.Threshold, wallet))
	}
	return warnings, ""
}
