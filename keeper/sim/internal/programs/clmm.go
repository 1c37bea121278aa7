package programs

import (
	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
)

// loadPosition reads a dex-owned position account and its pool, both instruction accounts.
func loadPosition(x *svm.Exec, dex Dex, posKey, poolKey solana.PublicKey) (clmm.Position, clmm.Pool, error) {
	pa, err := x.Account(posKey)
	if err != nil {
		return clmm.Position{}, clmm.Pool{}, err
	}
	if pa.Owner != dex.Program {
		return clmm.Position{}, clmm.Pool{}, programError(errCodeWrongAccount, "%s is not a %s position", posKey, dex.Name)
	}
	pos, err := dex.Layout.DecodePosition(pa.Data)
	if err != nil {
		return pos, clmm.Pool{}, programError(errCodeWrongAccount, "%v", err)
	}
	if pos.Pool != poolKey {
		return pos, clmm.Pool{}, programError(errCodeWrongAccount, "position %s belongs to pool %s, not %s", posKey, pos.Pool, poolKey)
	}
	pl, err := x.Account(poolKey)
	if err != nil {
		return pos, clmm.Pool{}, err
	}
	pool, err := dex.Layout.DecodePool(pl.Data)
	if err != nil || pl.Owner != dex.Program {
		return pos, pool, programError(errCodeWrongAccount, "%s is not a %s pool", poolKey, dex.Name)
	}
	return pos, pool, nil
}

// checkRange fails unless r is a valid range aligned to the pool's tick spacing.
func checkRange(r clmm.Range, spacing uint16) error {
	if err := r.Validate(); err != nil || !r.Aligned(spacing) {
		return programError(errCodeInvalidRange, "range %s is not valid for tick spacing %d", r, spacing)
	}
	return nil
}

// Transfer-position accounts: user, co-signer, loan (writable), position, pool.
const transferPositionAccounts = 5

// execTransferPosition checks and records the move of a dex-a collateral position; the dex-a
// instruction that follows in the same transaction moves the range.
func (w *Catalog) execTransferPosition(c *marketCtx, op instr.TransferPositionOp, r *instr.DataReader) error {
	key, l, err := c.loadLoan(r)
	if err != nil {
		return err
	}
	col, pos, pool, err := c.positionCollateral(l, key, int(op.Index), clmm.DexA)
	if err != nil {
		return err
	}
	if pos.Liquidity != clmm.U128From64(op.Liquidity) {
		return programError(errCodeWrongAccount, "liquidity %d does not match the position's %s", op.Liquidity, pos.Liquidity)
	}
	if err := checkRange(clmm.Range{Lower: op.Lower, Upper: op.Upper}, pool.TickSpacing); err != nil {
		return err
	}
	col.WriteVersion++
	col.LastInteractedTime, col.LastInteractedTxn = c.now, c.txn
	c.x.Logf("transfer_position: slot %d to [%d, %d) with slippage %d bps", op.Index, op.Lower, op.Upper, op.SlippageBps)
	return c.saveLoan(key, l)
}

// positionCollateral returns the CLMM collateral slot index of loan l held on dex, with its position
// (account 3) and pool (account 4 for dex-a, read from the position for dex-b).
func (c *marketCtx) positionCollateral(l *state.Loan, key solana.PublicKey, index int, dexName string) (*state.Collateral, clmm.Position, clmm.Pool, error) {
	col, ok := l.CollateralAt(index)
	if !ok || col.Dex != dexName {
		return nil, clmm.Position{}, clmm.Pool{}, programError(errCodeWrongAccount, "loan %s has no %s position in slot %d", key, dexName, index)
	}
	dex, _ := DexByName(dexName)
	posKey, err := c.account(3)
	if err != nil {
		return nil, clmm.Position{}, clmm.Pool{}, err
	}
	poolKey, err := c.account(4)
	if err != nil {
		return nil, clmm.Position{}, clmm.Pool{}, err
	}
	pos, pool, err := loadPosition(c.x, dex, posKey, poolKey)
	if err != nil {
		return nil, pos, pool, err
	}
	if pos.Mint.String() != col.AssetMint || poolKey.String() != col.AssetIdentifier {
		return nil, pos, pool, programError(errCodeWrongAccount, "position %s is not the collateral in slot %d", posKey, index)
	}
	return col, pos, pool, nil
}

// Claim-fees accounts: user, co-signer, loan (writable), position, pool.
const claimFeesAccounts = 5

// execClaimFees checks and records a dex-b fee claim; the dex-b instruction that follows pays it.
func (w *Catalog) execClaimFees(c *marketCtx, index uint8, r *instr.DataReader) error {
	key, l, err := c.loadLoan(r)
	if err != nil {
		return err
	}
	col, _, _, err := c.positionCollateral(l, key, int(index), clmm.DexB)
	if err != nil {
		return err
	}
	col.WriteVersion++
	col.LastInteractedTime, col.LastInteractedTxn = c.now, c.txn
	return c.saveLoan(key, l)
}

// ExecuteDex runs one instruction of the dex-a or dex-b program. Both accept changes only with the
// market co-signer's signature, standing for the market program that holds the position NFTs:
//   - set-range (accounts: position, pool, co-signer, then the tick arrays of the old range's lower
//     and upper ticks and of the new range's): a liquidity change, which brings the position's fees
//     up to date, removes its liquidity from the old range and adds it to the new one;
//   - update-fees (accounts: position, pool (writable), co-signer, the tick arrays of the lower and
//     upper ticks): brings the pool's reward growth and the position's stored fees and rewards up
//     to date (dex-b's update_fees_and_rewards);
//   - collect-fees (accounts: position, pool, co-signer, owner, the pool's token accounts of mint 0
//     and 1, the owner's token accounts of mint 0 and 1, the Token program): pays the stored fees.
func ExecuteDex(x *svm.Exec, in svm.Instruction) error {
	dex, _ := DexByName(clmm.DexA)
	if in.ProgramID == ids.DexBProgramID {
		dex, _ = DexByName(clmm.DexB)
	}
	if len(in.Data) == 0 || len(in.Accounts) < 3 {
		return svm.ErrInvalidInstructionData
	}
	if in.Accounts[2].PublicKey != ids.CoSigner() || !in.Accounts[2].IsSigner {
		return programError(errCodeUnauthorized, "the market co-signer must sign %s instructions", dex.Name)
	}
	posKey, poolKey := in.Accounts[0].PublicKey, in.Accounts[1].PublicKey
	pos, pool, err := loadPosition(x, dex, posKey, poolKey)
	if err != nil {
		return err
	}
	r := &instr.DataReader{B: in.Data[1:]}
	switch in.Data[0] {
	case instr.DexOpSetRange:
		next := clmm.Range{Lower: r.I32(), Upper: r.I32()}
		if err := finish(r); err != nil {
			return err
		}
		if err := checkRange(next, pool.TickSpacing); err != nil {
			return err
		}
		if err := moveRange(x, in, dex, &pos, pool, next); err != nil {
			return err
		}
	case instr.DexOpUpdateFees:
		if err := finish(r); err != nil {
			return err
		}
		b, _, err := loadTicks(x, in, 3, dex, poolKey, pool, pos.Range)
		if err != nil {
			return err
		}
		AccrueRewards(&pool, uint64(x.Block().Time.Unix()))
		if err := touch(dex.Layout, &pos, pool, b, true); err != nil {
			return programError(errCodeWrongAccount, "update fees: %v", err)
		}
		if err := x.SetData(poolKey, dex.Layout.EncodePool(pool)); err != nil {
			return err
		}
	case instr.DexOpCollectFees:
		if err := collectFees(x, in, &pos, pool, r); err != nil {
			return err
		}
	default:
		return svm.ErrInvalidInstructionData
	}
	return x.SetData(posKey, dex.Layout.EncodePosition(pos))
}

// collectFees pays a position's fees owed from the pool to the owner (account 3) and zeroes them.
func collectFees(x *svm.Exec, in svm.Instruction, pos *clmm.Position, pool clmm.Pool, r *instr.DataReader) error {
	if err := finish(r); err != nil {
		return err
	}
	if len(in.Accounts) < 4 {
		return svm.ErrNotEnoughAccountKeys
	}
	owner, poolKey := in.Accounts[3].PublicKey, in.Accounts[1].PublicKey
	for _, f := range []struct {
		mint solana.PublicKey
		fees uint64
	}{{pool.Mint0, pos.FeesOwed0}, {pool.Mint1, pos.FeesOwed1}} {
		if f.fees == 0 {
			continue
		}
		if err := x.Tokens.Transfer(poolKey, owner, f.mint, f.fees); err != nil {
			return err
		}
	}
	x.Logf("collect_fees: paid %d and %d", pos.FeesOwed0, pos.FeesOwed1)
	pos.FeesOwed0, pos.FeesOwed1 = 0, 0
	return nil
}
