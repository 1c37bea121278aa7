package sim

import (
	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/txbuild"
)

// withdrawStrategy serves E9: it pays idle principal (amount, or all of it with withdrawAll, which
// then ignores amount) from the strategy to its authority, creating the authority's token account if
// needed. Only the strategy's authority may ask (401 otherwise).
func (a *strategiesAPI) withdrawStrategy(c *call, q apiwire.WithdrawStrategyRequest) (any, error) {
	info, _, err := strategyFor(a.world, c, q.Strategy)
	if err != nil {
		return nil, err
	}
	idle := a.chain.State.TokenBalance(info.Address, info.Mint.Address)
	switch {
	case q.WithdrawAll && idle == 0:
		return nil, apiwire.BadRequest("strategy %s holds no idle principal", q.Strategy)
	case !q.WithdrawAll && q.Amount == 0:
		return nil, apiwire.BadRequest("amount must be positive unless withdrawAll is set")
	case !q.WithdrawAll && uint64(q.Amount) > idle:
		return nil, apiwire.BadRequest("amount %d exceeds the strategy's idle principal %d", q.Amount, idle)
	}
	mint := info.Mint.Address
	op := instr.StrategyWithdrawOp{Amount: uint64(q.Amount), All: q.WithdrawAll}
	ixs := []txbuild.Instruction{
		txbuild.CreateATAIdempotent(c.payer, c.wallet, mint),
		marketIx(c.wallet, op.Encode(), txbuild.Meta(info.Address, false, false), txbuild.Meta(txbuild.Ata(info.Address, mint), false, true),
			txbuild.Meta(txbuild.Ata(c.wallet, mint), false, true), txbuild.Meta(mint, false, false), txbuild.Meta(solana.TokenProgramID, false, false)),
	}
	return a.tx.one(c, mint, ixs)
}
