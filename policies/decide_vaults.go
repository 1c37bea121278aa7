package policies

import (
	"fmt"

	"github.com/keeper-project/keeper/keeper/market"
)

// withdrawInputs are what a strategy-withdraw decision used.
type withdrawInputs struct {
	Idle   uint64 `json:"idle"`
	Buffer uint64 `json:"buffer"`
}

// strategyWithdraw sweeps idle − buffer when it reaches min_amount.
func (e *evaluator) strategyWithdraw(ve *vaultEntry, env *vaultEnv) {
	wp := e.p.Params.(*StrategyWithdrawParams)
	f := env.Vault
	mint := f.PrincipalMint
	buffer, err := wp.Buffer.Units(mint, e.obs.Tokens)
	if err != nil {
		e.skip(f.Address, SkipNoData, "params.buffer "+err.Error())
		return
	}
	minAmount, err := wp.MinAmount.Units(mint, e.obs.Tokens)
	if err != nil {
		e.skip(f.Address, SkipNoData, "params.min_amount "+err.Error())
		return
	}
	if f.Idle > buffer {
		f.IdleAboveBuffer = f.Idle - buffer
	}
	if f.IdleAboveBuffer < minAmount || !e.when(f.Address, env) || !e.ready(f.Address) {
		return
	}
	e.plan(Action{
		Target:  f.Address,
		Request: Request{WithdrawStrategy: &market.WithdrawStrategyRequest{Amount: market.Amount(f.IdleAboveBuffer), Strategy: f.Strategy}},
		Reason: fmt.Sprintf("idle %s is above the buffer %s: withdraw %s from strategy %s",
			formatAmount(f.Idle, mint, e.obs.Tokens), formatAmount(buffer, mint, e.obs.Tokens),
			formatAmount(f.IdleAboveBuffer, mint, e.obs.Tokens), shortKey(f.Strategy)),
	}, withdrawInputs{Idle: f.Idle, Buffer: buffer})
}
