package programs

import (
	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
	"github.com/keeper-project/keeper/keeper/sim/internal/units"
)

// Repay accounts: user (signer, writable), co-signer, loan (writable), the ledger's strategy, the
// user's and the strategy's token accounts of the principal mint (writable), the mint, the Token
// program.
const repayAccounts = 8

// execRepay moves principal tokens from the user to the ledger's strategy: principal first, then
// interest; repayAll pays everything outstanding.
func (w *Catalog) execRepay(c *marketCtx, op instr.RepayOp, r *instr.DataReader) error {
	key, l, err := c.loadLoan(r)
	if err != nil {
		return err
	}
	lg, ok := l.LedgerAt(int(op.Ledger))
	if !ok {
		return programError(errCodeWrongAccount, "loan %s has no ledger %d", key, op.Ledger)
	}
	strategy, err := c.account(3)
	if err != nil {
		return err
	}
	if strategy.String() != lg.Strategy {
		return programError(errCodeWrongAccount, "account %s is not ledger %d's strategy", strategy, op.Ledger)
	}
	lg.Accrue(c.now)
	owed := lg.Outstanding() + lg.InterestOutstanding
	pay := min(op.Amount, owed)
	if op.All {
		pay = owed
	}
	if pay == 0 {
		return programError(errCodeNothingOwed, "ledger %d of loan %s owes nothing", op.Ledger, key)
	}
	mint := solana.MustPublicKeyFromBase58(lg.PrincipalMint)
	if err := c.x.Tokens.Transfer(c.user, strategy, mint, pay); err != nil {
		return err
	}
	principal := min(pay, lg.Outstanding())
	lg.PrincipalRepaid += principal
	lg.InterestOutstanding -= pay - principal
	w.recordRepay(c, l, lg, mint, pay)
	c.x.Logf("repay: ledger %d paid %d (principal %d)", op.Ledger, pay, principal)
	return c.saveLoan(key, l)
}

// recordRepay updates a ledger's bookkeeping, the history and the borrower's inflows after a repay.
func (w *Catalog) recordRepay(c *marketCtx, l *state.Loan, lg *state.Ledger, mint solana.PublicKey, pay uint64) {
	lg.WriteVersion++
	lg.LastInteractedTime, lg.LastInteractedTxn = c.now, c.txn
	if lg.Outstanding() == 0 && lg.InterestOutstanding == 0 {
		lg.Status = state.LedgerStatusRepaid
	}
	l.History = append(l.History, state.HistoryEvent{Time: c.now, Kind: state.EventRepayPrincipal, Amount: pay, Txn: c.txn})
	usd := w.Usd(mint, pay)
	l.Inflow.PrincipalUSD += usd
	if m, ok := w.MintByAddr[mint]; ok {
		l.Inflow.PrincipalTokens += units.WholeTokens(pay, m.Decimals)
	}
}

// Withdraw-collateral accounts: user, co-signer, loan (writable), the loan's and the user's token
// accounts of the collateral mint (writable), the mint, the Token program.
const withdrawCollateralAccounts = 7

// execWithdrawCollateral returns plain-token collateral to the borrower. The simulator allows it only
// once no ledger has debt (earlier instructions of the same transaction may have repaid it).
func (w *Catalog) execWithdrawCollateral(c *marketCtx, op instr.WithdrawCollateralOp, r *instr.DataReader) error {
	key, l, col, err := c.loadTokenCollateral(op, r)
	if err != nil {
		return err
	}
	if l.HasDebt() {
		return programError(errCodeLoanHasDebt, "loan %s still has debt; repay it first", key)
	}
	return w.moveCollateral(c, key, l, col, op.Amount)
}

// loadTokenCollateral loads the loan and the plain-token collateral slot a withdrawal of op names,
// checking that the slot holds op's amount.
func (c *marketCtx) loadTokenCollateral(op instr.WithdrawCollateralOp, r *instr.DataReader) (solana.PublicKey, *state.Loan, *state.Collateral, error) {
	key, l, err := c.loadLoan(r)
	if err != nil {
		return key, nil, nil, err
	}
	col, ok := l.CollateralAt(int(op.Index))
	switch {
	case !ok || col.Dex != "":
		return key, nil, nil, programError(errCodeWrongAccount, "loan %s has no token collateral in slot %d", key, op.Index)
	case op.Amount > col.Amount:
		return key, nil, nil, programError(errCodeWrongAccount, "slot %d holds %d, less than %d", op.Index, col.Amount, op.Amount)
	}
	return key, l, col, nil
}

// moveCollateral pays amount of token collateral col of loan l (at key) to the borrower and records it.
func (w *Catalog) moveCollateral(c *marketCtx, key solana.PublicKey, l *state.Loan, col *state.Collateral, amount uint64) error {
	op := instr.WithdrawCollateralOp{Index: uint8(col.Index), Amount: amount}
	mint := solana.MustPublicKeyFromBase58(col.AssetMint)
	if err := c.x.Tokens.Transfer(key, c.user, mint, op.Amount); err != nil {
		return err
	}
	col.Amount -= op.Amount
	col.WriteVersion++
	col.LastInteractedTime, col.LastInteractedTxn = c.now, c.txn
	l.History = append(l.History, state.HistoryEvent{Time: c.now, Kind: state.EventRemoveCollateral, AssetIdentifier: col.AssetIdentifier,
		AssetMint: col.AssetMint, Amount: op.Amount, Txn: c.txn})
	l.Inflow.CollateralUSD -= w.Usd(mint, op.Amount)
	if m, ok := w.MintByAddr[mint]; ok && len(l.Collateral) > 0 && l.Collateral[0].AssetMint == col.AssetMint {
		l.Inflow.CollateralTokens -= units.WholeTokens(op.Amount, m.Decimals)
	}
	return c.saveLoan(key, l)
}

// execCloseLoan closes a loan without debt or collateral (accounts: user, co-signer, loan).
func execCloseLoan(c *marketCtx, r *instr.DataReader) error {
	key, l, err := c.loadLoan(r)
	if err != nil {
		return err
	}
	if l.HasDebt() {
		return programError(errCodeLoanHasDebt, "loan %s still has debt", key)
	}
	for _, col := range l.Collateral {
		if col.Amount > 0 {
			return programError(errCodeLoanHasDebt, "loan %s still holds collateral in slot %d", key, col.Index)
		}
	}
	l.Closed, l.Status = true, state.LoanStatusRepaid
	return c.saveLoan(key, l)
}
