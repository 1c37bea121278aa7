package programs

import (
	"bytes"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
)

// Custom errors of a repay from collateral.
const (
	errCodeFlashNotRepaid = 6030 // a flash loan has no repayment later in its transaction
	errCodeFlashNotOwed   = 6031 // a flash repayment without a flash loan to repay
	errCodeUnhealthy      = 6032 // a withdrawal would leave the loan at or past its liquidation threshold
)

// Flash accounts: user, co-signer, loan (writable), the ledger's strategy, the user's and the
// strategy's token accounts of the principal (writable), the mint, the Token program and, for a
// borrow, the Instructions sysvar.
const flashAccounts = 8

// execFlash runs OpFlashBorrow or OpFlashRepay. A borrow lends op.Amount of the ledger's principal
// from its strategy to the borrower, after finding, through the Instructions sysvar, a flash
// repayment of at least that much of the same loan and ledger later in the transaction: as flash-loan
// programs on Solana do, so that a transaction without it fails whatever its other instructions do.
// A repay pays the strategy back from the borrower's wallet; the chain fails it (and the whole
// transaction) if the wallet holds less.
func (w *Catalog) execFlash(c *marketCtx, tag uint8, op instr.FlashOp, r *instr.DataReader) error {
	if len(c.in.Accounts) < flashAccounts {
		return svm.ErrNotEnoughAccountKeys
	}
	key, l, err := c.loadLoan(r)
	if err != nil {
		return err
	}
	lg, ok := l.LedgerAt(int(op.Ledger))
	if !ok {
		return programError(errCodeWrongAccount, "loan %s has no ledger %d", key, op.Ledger)
	}
	strategy := c.in.Accounts[3].PublicKey
	if strategy.String() != lg.Strategy {
		return programError(errCodeWrongAccount, "account %s is not ledger %d's strategy", strategy, op.Ledger)
	}
	mint := solana.MustPublicKeyFromBase58(lg.PrincipalMint)
	if l.FlashOwed == nil {
		l.FlashOwed = map[int]uint64{}
	}
	if tag == instr.OpFlashRepay {
		if l.FlashOwed[lg.Index] < op.Amount || op.Amount == 0 {
			return programError(errCodeFlashNotOwed, "ledger %d owes %d of flash loans, not %d", op.Ledger, l.FlashOwed[lg.Index], op.Amount)
		}
		if err := c.x.Tokens.Transfer(c.user, strategy, mint, op.Amount); err != nil {
			return err
		}
		l.FlashOwed[lg.Index] -= op.Amount
		if l.FlashOwed[lg.Index] == 0 {
			delete(l.FlashOwed, lg.Index)
		}
		return c.saveLoan(key, l)
	}
	if !w.flashRepaidLater(c, key, op) {
		return programError(errCodeFlashNotRepaid, "flash loan of %d on ledger %d is not repaid later in the transaction", op.Amount, op.Ledger)
	}
	if err := c.x.Tokens.Transfer(strategy, c.user, mint, op.Amount); err != nil {
		return err
	}
	l.FlashOwed[lg.Index] += op.Amount
	c.x.Logf("flash borrow: ledger %d lent %d", op.Ledger, op.Amount)
	return c.saveLoan(key, l)
}

// flashRepaidLater reports whether an instruction after the executing one repays op on loan key.
func (w *Catalog) flashRepaidLater(c *marketCtx, key solana.PublicKey, op instr.FlashOp) bool {
	want := op.EncodeRepay()
	for i := c.x.InstructionIndex() + 1; ; i++ {
		ix, ok := c.x.Sibling(i)
		if !ok {
			return false
		}
		if ix.ProgramID == ids.MarketProgramID && len(ix.Accounts) > 2 && ix.Accounts[2].PublicKey == key && bytes.Equal(ix.Data, want) {
			return true
		}
	}
}

// execSwapWithdraw withdraws plain-token collateral while the loan may still have debt, as the first
// half of selling it: unlike OpWithdrawCollateral it needs no repaid loan, only one that stays
// healthy (every ledger's debt below its liquidation capacity) after the withdrawal at the oracle's
// prices. CLMM collateral counts for nothing here (a simplification on the safe side).
func (w *Catalog) execSwapWithdraw(c *marketCtx, op instr.WithdrawCollateralOp, r *instr.DataReader) error {
	if len(c.in.Accounts) < withdrawCollateralAccounts {
		return svm.ErrNotEnoughAccountKeys
	}
	key, l, col, err := c.loadTokenCollateral(op, r)
	if err != nil {
		return err
	}
	col.Amount -= op.Amount
	healthy := w.healthy(l, c.now)
	col.Amount += op.Amount
	if !healthy {
		return programError(errCodeUnhealthy, "withdrawing %d from slot %d would leave loan %s liquidatable", op.Amount, op.Index, key)
	}
	return w.moveCollateral(c, key, l, col, op.Amount)
}

// healthy reports whether every ledger of l with debt has it below its liquidation capacity:
// Σ collateral USD × weight × lqt (market-facts.md, per-ledger health).
func (w *Catalog) healthy(l *state.Loan, now int64) bool {
	for _, lg := range l.Ledgers {
		owed := lg.Outstanding() + lg.InterestAt(now)
		if owed == 0 {
			continue
		}
		debt := w.Usd(solana.MustPublicKeyFromBase58(lg.PrincipalMint), owed)
		capacity := 0.0
		for _, col := range l.Collateral {
			if col.Dex != "" || col.Index >= len(lg.LqtRatios) {
				continue
			}
			weight := int64(1_000_000)
			if col.Index < len(lg.Weights) {
				weight = lg.Weights[col.Index]
			}
			capacity += w.Usd(solana.MustPublicKeyFromBase58(col.AssetMint), col.Amount) * float64(weight) / 1e6 * float64(lg.LqtRatios[col.Index]) / 1e6
		}
		if debt >= capacity {
			return false
		}
	}
	return true
}
