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
	if f.Idle > wp.Buffer {
		f.IdleAboveBuffer = f.Idle - wp.Buffer
	}
	if f.IdleAboveBuffer < wp.MinAmount || !e.when(f.Address, env) || !e.ready(f.Address) {
		return
	}
	mint := f.PrincipalMint
	e.plan(Action{
		Target:  f.Address,
		Request: Request{WithdrawStrategy: &market.WithdrawStrategyRequest{Amount: market.Amount(f.IdleAboveBuffer), Strategy: f.Strategy}},
		Reason: fmt.Sprintf("idle %s is above the buffer %s: withdraw %s from strategy %s",
			formatAmount(f.Idle, mint, e.obs.Tokens), formatAmount(wp.Buffer, mint, e.obs.Tokens),
			formatAmount(f.IdleAboveBuffer, mint, e.obs.Tokens), shortKey(f.Strategy)),
	}, withdrawInputs{Idle: f.Idle, Buffer: wp.Buffer})
}
