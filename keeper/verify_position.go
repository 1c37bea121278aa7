package keeper

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"github.com/keeper-project/keeper/keeper/market"
)

// positionAfter reads the CLMM position collateral positionMint of loan
// again, as an observation reads it: its pool from the loan, then the
// position, pool and tick arrays from the chain, on both dexes' layouts.
func (k *Keeper) positionAfter(ctx context.Context, loan, positionMint string) (clmm.PositionState, error) {
	item, err := k.readLoan(ctx, loan)
	if err != nil {
		return clmm.PositionState{}, err
	}
	for _, c := range item.Collateral {
		if c.AssetMint != positionMint || !c.IsPool() {
			continue
		}
		pool, err1 := solana.PublicKeyFromBase58(c.AssetIdentifier)
		mint, err2 := solana.PublicKeyFromBase58(c.AssetMint)
		if err1 != nil || err2 != nil {
			return clmm.PositionState{}, fmt.Errorf("collateral %s of loan %s: not addresses", positionMint, loan)
		}
		var reqs []clmm.PositionRequest
		for _, d := range k.obs.dexes {
			reqs = append(reqs, clmm.PositionRequest{Dex: d, Pool: pool, PositionMint: mint})
		}
		states, err := k.obs.positions.Read(ctx, reqs)
		if err != nil {
			return clmm.PositionState{}, err
		}
		st := pickState(states)
		return st, st.Err
	}
	return clmm.PositionState{}, fmt.Errorf("loan %s no longer holds position %s", loan, positionMint)
}

// verifyRebalance says where a moved position stands after the move: its
// range against the pool's tick.
func (k *Keeper) verifyRebalance(ctx context.Context, p action.Plan) string {
	req := p.Request.TransferPosition
	if req == nil {
		return ""
	}
	var seen struct {
		Tick int64      `json:"tick"`
		Old  clmm.Range `json:"old"`
	}
	_ = json.Unmarshal(p.Seen, &seen) // what is missing shows as zero in the sentence's "before"
	st, err := k.positionAfter(ctx, req.Loan, req.PositionMint)
	if err != nil {
		return fmt.Sprintf("range %s at tick %d → unknown (%v)", seen.Old, seen.Tick, err)
	}
	where := "in range"
	if !st.Position.InRange(st.Pool) {
		where = "still out of range; the next run may act again"
	}
	return fmt.Sprintf("range %s at tick %d → %s at tick %d, %s", seen.Old, seen.Tick, st.Position.Range, st.Pool.TickCurrent, where)
}

// verifyClaimFees says what the position is owed after its fees were
// claimed.
func (k *Keeper) verifyClaimFees(ctx context.Context, p action.Plan) string {
	req := p.Request.ClaimFees
	if req == nil {
		return ""
	}
	var seen struct {
		Fees0 uint64 `json:"fees0"`
		Fees1 uint64 `json:"fees1"`
	}
	_ = json.Unmarshal(p.Seen, &seen)
	st, err := k.positionAfter(ctx, req.Loan, req.PositionMint)
	if err == nil {
		err = st.OwedErr
	}
	if err != nil {
		return fmt.Sprintf("fees owed %d / %d → unknown (%v)", seen.Fees0, seen.Fees1, err)
	}
	return fmt.Sprintf("fees owed %d / %d → %d / %d (base units of the pool's tokens)", seen.Fees0, seen.Fees1, st.Owed.Fees0, st.Owed.Fees1)
}

// verifyClaimWithdrawal says whether the claimed withdrawal request shows
// paid out in its vault's queue after the claim.
func (k *Keeper) verifyClaimWithdrawal(ctx context.Context, p action.Plan) string {
	req := p.Request.WithdrawClaim
	if req == nil {
		return ""
	}
	q, err := k.market.WithdrawalQueue(ctx, market.WithdrawalQueueRequest{Address: req.Address, Wallet: req.Wallet})
	if err != nil {
		return fmt.Sprintf("request %s → unknown (%v)", req.RequestID, err)
	}
	for _, r := range q.Requests {
		if r.RequestID != req.RequestID {
			continue
		}
		if r.State() == market.WithdrawalClaimed {
			return fmt.Sprintf("request %s paid out: %d claimed", req.RequestID, uint64(r.ClaimedAmount))
		}
		return fmt.Sprintf("request %s still shows unclaimed (%d filled); the market may not have seen the claim yet", req.RequestID, uint64(r.FilledAmount))
	}
	return fmt.Sprintf("request %s paid out: no longer in the queue", req.RequestID)
}
