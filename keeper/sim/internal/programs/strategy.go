package programs

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
)

// loadStrategy checks that r holds no more data, then reads the strategy at account 2 and checks that
// the user is its authority.
func (c *marketCtx) loadStrategy(r *instr.DataReader) (solana.PublicKey, *state.Strategy, error) {
	key, st, err := loadOwned(c, r, "strategy", state.DecodeStrategy)
	if err != nil {
		return key, nil, err
	}
	if st.Authority != c.user.String() {
		return key, nil, programError(errCodeUnauthorized, "%s is not the authority of strategy %s", c.user, key)
	}
	return key, st, nil
}

// execStrategyUpdate applies strategy-update items (accounts: authority, co-signer, strategy
// (writable)).
func execStrategyUpdate(c *marketCtx, r *instr.DataReader) error {
	items, key, st, err := c.loadUpdate(r)
	if err != nil {
		return err
	}
	return applyItems(c, key, st, items)
}

// loadUpdate reads a counted list of strategy-update items, the rest of r, and loads the strategy
// they change (see loadStrategy).
func (c *marketCtx) loadUpdate(r *instr.DataReader) ([]instr.TermItem, solana.PublicKey, *state.Strategy, error) {
	n := int(r.U8())
	items := make([]instr.TermItem, 0, n)
	for range n {
		it, err := instr.DecodeTermItem(r)
		if err != nil {
			return nil, solana.PublicKey{}, nil, programError(errCodeBadUpdate, "%v", err)
		}
		items = append(items, it)
	}
	key, st, err := c.loadStrategy(r)
	return items, key, st, err
}

// execStrategyUpdateStep applies one step of a split strategy update (data:
// update id (8 bytes), step, step count, items). Step 0 starts the update;
// every later step applies only right after the step before it of the same
// update, as a program that keeps a multi-transaction update consistent
// does: sent alone or out of order, it fails. A rebuilt update has the same
// id, so its remaining steps continue one that stopped midway.
func execStrategyUpdateStep(c *marketCtx, r *instr.DataReader) error {
	id := fmt.Sprintf("%x", r.Take(8))
	step, total := r.U8(), r.U8()
	items, key, st, err := c.loadUpdate(r)
	if err != nil {
		return err
	}
	if step >= total {
		return programError(errCodeBadUpdate, "update step %d of %d", step, total)
	}
	if step > 0 && (st.PendingUpdate != id || st.NextStep != int(step)) {
		return programError(errCodeUpdateOrder, "strategy %s: step %d of update %s before step %d (pending update %q, next step %d)",
			key, step, id, step-1, st.PendingUpdate, st.NextStep)
	}
	st.PendingUpdate, st.NextStep = id, int(step)+1
	if int(step)+1 == int(total) {
		st.PendingUpdate, st.NextStep = "", 0
	}
	return applyItems(c, key, st, items)
}

// applyItems applies items to the strategy at key and stores it.
func applyItems(c *marketCtx, key solana.PublicKey, st *state.Strategy, items []instr.TermItem) error {
	for i, it := range items {
		if err := st.Apply(it); err != nil {
			return programError(errCodeBadUpdate, "item %d: %v", i, err)
		}
	}
	st.WriteVersion++
	data, err := state.EncodeStrategy(st)
	if err != nil {
		return err
	}
	c.x.Logf("strategy_update: %d items", len(items))
	return c.x.SetData(key, data)
}

// Strategy-withdraw accounts: authority, co-signer, strategy, the strategy's and the authority's
// token accounts of the principal mint (writable), the mint, the Token program.
const strategyWithdrawAccounts = 7

// execStrategyWithdraw pays idle principal from the strategy to its authority.
func execStrategyWithdraw(c *marketCtx, op instr.StrategyWithdrawOp, r *instr.DataReader) error {
	key, st, err := c.loadStrategy(r)
	if err != nil {
		return err
	}
	mint, err := solana.PublicKeyFromBase58(st.PrincipalMint)
	if err != nil {
		return svm.ErrInvalidAccountData
	}
	idle, err := c.x.Tokens.Balance(key, mint)
	if err != nil {
		return err
	}
	amount := op.Amount
	if op.All {
		amount = idle
	}
	if amount == 0 || amount > idle {
		return programError(errCodeInsufficientIdle, "strategy %s holds %d idle, cannot withdraw %d", key, idle, amount)
	}
	c.x.Logf("strategy_withdraw: %d of %d idle", amount, idle)
	return c.x.Tokens.Transfer(key, c.user, mint, amount)
}
