package policies

import (
	"fmt"

	"github.com/keeper-project/keeper/keeper/market"
)

// alertInputs are what an alert decision used.
type alertInputs struct {
	Message string `json:"message"`
}

// decide plans a notification on target when `when` holds.
func (ap *AlertParams) decide(e *evaluator, target string, env any) {
	skips := len(e.res.Skipped)
	if !e.when(target, env) {
		if len(e.res.Skipped) == skips { // not an error: the condition is false
			e.clear(target, env)
		}
		return
	}
	if !e.gate.ready(target) {
		return
	}
	msg, err := renderAlert(ap.tmpl, env)
	if err != nil {
		e.res.skip(target, SkipError, err.Error())
		return
	}
	e.gate.plan(Action{Target: target, Reason: msg, Alert: &Alert{Severity: ap.Severity, Message: msg}}, alertInputs{Message: msg})
}

// claimInputs are what a claim-withdrawals decision used.
type claimInputs struct {
	Vault     string `json:"vault"`
	Requested uint64 `json:"requested"`
	Filled    uint64 `json:"filled"`
}

// decide claims one request when it is fully filled and not yet
// claimed, and the earn position of its vault lists it among its open
// withdrawal requests: the requestId E10 takes is then an
// onChainRequestAddr, as the spec names it, not only the assumed queue
// shape's id. The provider is left to the market client's configured one.
func (*ClaimWithdrawalsParams) decide(e *evaluator, we *withdrawalEntry, env *withdrawalEnv) {
	f := &we.facts
	if !we.req.Claimable() || !e.when(f.RequestID, env) {
		return
	}
	if !we.listed {
		e.res.skip(f.RequestID, SkipNoData, fmt.Sprintf("request %s in earn vault %s is filled but not among the earn position's open withdrawal requests: not claimed",
			shortKey(f.RequestID), shortKey(f.Vault)))
		return
	}
	if !e.gate.ready(f.RequestID) {
		return
	}
	e.gate.plan(Action{
		Target:  f.RequestID,
		Request: Request{WithdrawClaim: &market.WithdrawClaimRequest{Address: f.Vault, Wallet: e.obs.Wallet, RequestID: f.RequestID}},
		// The market's earn answers name no mint, so the amounts stay in
		// base units and say so (docs/operations.md, "Amounts").
		Reason: fmt.Sprintf("request %s in earn vault %s is fully filled (%d of %d base units requested, mint unknown): claim it",
			shortKey(f.RequestID), shortKey(f.Vault), f.Filled, f.Requested),
	}, claimInputs{Vault: f.Vault, Requested: f.Requested, Filled: f.Filled})
}

// withdrawInputs are what a strategy-withdraw decision used.
type withdrawInputs struct {
	Idle   uint64 `json:"idle"`
	Buffer uint64 `json:"buffer"`
}

// decide sweeps a vault's idle − buffer when it reaches min_amount.
func (wp *StrategyWithdrawParams) decide(e *evaluator, env *vaultEnv) {
	f := env.Vault
	mint := f.PrincipalMint
	buffer, ok := e.units(f.Address, "params.buffer", wp.Buffer, mint)
	if !ok {
		return
	}
	minAmount, ok := e.units(f.Address, "params.min_amount", wp.MinAmount, mint)
	if !ok {
		return
	}
	if f.Idle > buffer {
		f.IdleAboveBuffer = f.Idle - buffer
	}
	if f.IdleAboveBuffer < minAmount || !e.when(f.Address, env) || !e.gate.ready(f.Address) {
		return
	}
	e.gate.plan(Action{
		Target:  f.Address,
		Request: Request{WithdrawStrategy: &market.WithdrawStrategyRequest{Amount: market.Amount(f.IdleAboveBuffer), Strategy: f.Strategy}},
		Reason: fmt.Sprintf("idle %s is above the buffer %s: withdraw %s from strategy %s",
			FormatAmount(f.Idle, mint, e.obs.Tokens), FormatAmount(buffer, mint, e.obs.Tokens),
			FormatAmount(f.IdleAboveBuffer, mint, e.obs.Tokens), shortKey(f.Strategy)),
	}, withdrawInputs{Idle: f.Idle, Buffer: buffer})
}
