package sim

import (
	"encoding/base64"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/txbuild"
)

// addSetup decodes step i's setupIxs (data in base64) into the plan's setup
// instructions. Where the market places them is not in the spec; the
// simulator follows keeper's assumption M-32 (docs/assumptions.md): with
// unifySetup they open the one transaction of the steps, in the order
// given, before anything the market adds; without it they make a
// transaction of their own that lands first.
func (p *loanPlan) addSetup(i int, ixs []apiwire.Instruction, unify bool) error {
	for j, ix := range ixs {
		prog, err := solana.PublicKeyFromBase58(ix.ProgramID)
		if err != nil {
			return apiwire.BadRequest("steps[%d].params.setupIxs[%d].programId %q is not a base58 address", i, j, ix.ProgramID)
		}
		data, err := base64.StdEncoding.DecodeString(ix.Data)
		if err != nil {
			return apiwire.BadRequest("steps[%d].params.setupIxs[%d].data is not base64: %v", i, j, err)
		}
		in := txbuild.Instruction{Program: prog, Data: data}
		for k, a := range ix.Accounts {
			key, err := solana.PublicKeyFromBase58(a.Pubkey)
			if err != nil {
				return apiwire.BadRequest("steps[%d].params.setupIxs[%d].accounts[%d].pubkey %q is not a base58 address", i, j, k, a.Pubkey)
			}
			in.Accounts = append(in.Accounts, txbuild.Meta(key, a.IsSigner, a.IsWritable))
		}
		p.setup = append(p.setup, in)
	}
	p.unify = p.unify || unify
	return nil
}

// groups are the plan's transactions: the setup instructions first (in the
// steps' transaction with unifySetup, else on their own), then the steps'.
func (p *loanPlan) groups() [][]txbuild.Instruction {
	switch {
	case len(p.setup) == 0:
		return [][]txbuild.Instruction{p.ixs}
	case p.unify:
		return [][]txbuild.Instruction{append(append([]txbuild.Instruction(nil), p.setup...), p.ixs...)}
	}
	return [][]txbuild.Instruction{p.setup, p.ixs}
}
