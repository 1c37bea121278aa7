package sim

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
	"github.com/keeper-project/keeper/keeper/sim/internal/txbuild"
)

// buildLoan serves E2. The simulator builds repay steps: each repayParams entry repays a ledger
// (principal first, then interest; repayAll pays everything), each collateralWithdrawalParams entry
// returns plain-token collateral (only once the loan has no debt), and closeIfPossible closes the
// loan when the steps leave it without debt and collateral. All instructions go into one transaction.
func (a *loansAPI) buildLoan(c *call, q apiwire.BuildLoanRequest) (any, error) {
	info, st, err := loanFor(a.world, c, q.Loan)
	if err != nil {
		return nil, err
	}
	if len(q.Steps) == 0 {
		return nil, apiwire.BadRequest("steps must hold at least one step")
	}
	plan := &loanPlan{info: info, st: st, user: c.wallet, payer: c.payer, now: a.clock.Now().Unix()}
	for i, step := range q.Steps {
		if err := plan.step(i, step, q.Loan); err != nil {
			return nil, err
		}
	}
	plan.maybeClose()
	a.wrapNative(plan, plan.wrapNeed)
	var mint solana.PublicKey
	if len(st.Ledgers) > 0 {
		mint = solana.MustPublicKeyFromBase58(st.Ledgers[0].PrincipalMint)
	}
	txs, err := a.tx.build(c, mint, plan.groups()...)
	if err != nil {
		return nil, err
	}
	return apiwire.BuildLoanResponse{Loan: q.Loan, Transactions: txbuild.ApiTransactions(txs)}, nil
}

// loanPlan collects the instructions of an E2 request and predicts their effect for closeIfPossible.
type loanPlan struct {
	info        *programs.Loan
	st          *state.Loan
	user, payer solana.PublicKey
	ixs         []txbuild.Instruction
	// setup are the callers' setupIxs; unify puts them into the
	// transaction of the steps (see groups).
	setup     []txbuild.Instruction
	unify     bool
	repaidAll map[int]bool
	withdrawn map[int]uint64
	close     bool
	now       int64           // unix seconds at build time
	wrapNeed  uint64          // wrapped SOL the repays take at most
	flash     []instr.FlashOp // flash loans still to repay (api_collateral.go)
}

// step validates one step and adds its instructions.
func (p *loanPlan) step(i int, step apiwire.Step, loan string) error {
	switch step.Type {
	case apiwire.StepRepay:
	case apiwire.StepFlashBorrow, apiwire.StepSwapCollateral:
		return p.collateralStep(i, step, loan)
	default:
		return apiwire.BadRequest("steps[%d].type %q is not a step type (repay, flashBorrow, swapCollateral)", i, step.Type)
	}
	pr := step.Params
	switch {
	case pr.Loan != "" && pr.Loan != loan:
		return apiwire.BadRequest("steps[%d].params.loan %s differs from loan %s", i, pr.Loan, loan)
	case len(pr.CpiIxs)+len(pr.CpiLuts)+len(pr.SetupLuts)+len(pr.CpiSigners)+len(pr.SetupSigners) > 0 ||
		pr.StakeInstructions != nil || len(pr.WeightMatrixUpdates) > 0:
		return apiwire.BadRequest("steps[%d].params: cpi instructions, lookup tables, signers, staking and weight updates are not supported by the simulator", i)
	case len(pr.RepayParams) == 0 && len(pr.CollateralWithdrawalParams) == 0:
		return apiwire.BadRequest("steps[%d].params: a repay step needs repayParams or collateralWithdrawalParams", i)
	}
	if err := p.addSetup(i, pr.SetupIxs, pr.UnifySetup != nil && *pr.UnifySetup); err != nil {
		return err
	}
	for j, rp := range pr.RepayParams {
		if err := p.repay(i, j, rp); err != nil {
			return err
		}
	}
	for j, cw := range pr.CollateralWithdrawalParams {
		if err := p.withdraw(i, j, cw); err != nil {
			return err
		}
	}
	if pr.CloseIfPossible != nil && *pr.CloseIfPossible {
		p.close = true
	}
	return nil
}

// repay adds one repay instruction.
func (p *loanPlan) repay(i, j int, rp apiwire.RepayParam) error {
	l, ok := p.st.LedgerAt(rp.LedgerIndex)
	switch {
	case !ok:
		return apiwire.BadRequest("steps[%d].params.repayParams[%d].ledgerIndex %d: loan has no such ledger", i, j, rp.LedgerIndex)
	case rp.LedgerIndex > 255:
		return apiwire.BadRequest("steps[%d].params.repayParams[%d].ledgerIndex %d is out of range", i, j, rp.LedgerIndex)
	case !rp.RepayAll && rp.Amount == 0:
		return apiwire.BadRequest("steps[%d].params.repayParams[%d].amount must be positive unless repayAll is set", i, j)
	case l.Outstanding() == 0 && l.InterestOutstanding == 0 && l.InterestPerSecond() == 0:
		return apiwire.BadRequest("steps[%d].params.repayParams[%d]: ledger %d owes nothing", i, j, rp.LedgerIndex)
	}
	if p.repaidAll == nil {
		p.repaidAll = map[int]bool{}
	}
	p.repaidAll[rp.LedgerIndex] = p.repaidAll[rp.LedgerIndex] || rp.RepayAll
	strategy := solana.MustPublicKeyFromBase58(l.Strategy)
	mint := solana.MustPublicKeyFromBase58(l.PrincipalMint)
	if mint == solana.WrappedSol {
		p.wrapNeed += wrapNeed(l, uint64(rp.Amount), rp.RepayAll, p.now)
	}
	op := instr.RepayOp{Ledger: uint8(rp.LedgerIndex), Amount: uint64(rp.Amount), All: rp.RepayAll}
	p.ixs = append(p.ixs, marketIx(p.user, op.Encode(), txbuild.Meta(p.info.Address, false, true), txbuild.Meta(strategy, false, false),
		txbuild.Meta(txbuild.Ata(p.user, mint), false, true), txbuild.Meta(txbuild.Ata(strategy, mint), false, true), txbuild.Meta(mint, false, false),
		txbuild.Meta(solana.TokenProgramID, false, false)))
	return nil
}

// withdraw adds a collateral withdrawal, creating the user's token account if needed.
func (p *loanPlan) withdraw(i, j int, cw apiwire.CollateralWithdrawal) error {
	var col *state.Collateral
	for k := range p.st.Collateral {
		if p.st.Collateral[k].AssetMint == cw.CollateralMint && p.st.Collateral[k].Dex == "" {
			col = &p.st.Collateral[k]
		}
	}
	switch {
	case col == nil:
		return apiwire.BadRequest("steps[%d].params.collateralWithdrawalParams[%d].collateralMint %q is not token collateral of the loan", i, j, cw.CollateralMint)
	case cw.Amount == 0 || uint64(cw.Amount) > col.Amount-p.withdrawn[col.Index]:
		return apiwire.BadRequest("steps[%d].params.collateralWithdrawalParams[%d].amount %d must be positive and at most the %d held",
			i, j, cw.Amount, col.Amount-p.withdrawn[col.Index])
	}
	if p.withdrawn == nil {
		p.withdrawn = map[int]uint64{}
	}
	p.withdrawn[col.Index] += uint64(cw.Amount)
	mint := solana.MustPublicKeyFromBase58(col.AssetMint)
	op := instr.WithdrawCollateralOp{Index: uint8(col.Index), Amount: uint64(cw.Amount)}
	p.ixs = append(p.ixs, txbuild.CreateATAIdempotent(p.payer, p.user, mint),
		marketIx(p.user, op.Encode(), txbuild.Meta(p.info.Address, false, true), txbuild.Meta(txbuild.Ata(p.info.Address, mint), false, true),
			txbuild.Meta(txbuild.Ata(p.user, mint), false, true), txbuild.Meta(mint, false, false), txbuild.Meta(solana.TokenProgramID, false, false)))
	return nil
}

// maybeClose adds the close instruction when closeIfPossible was asked and the steps repay every
// ledger in full and withdraw every collateral.
func (p *loanPlan) maybeClose() {
	if !p.close {
		return
	}
	for _, l := range p.st.Ledgers {
		if l.Outstanding() > 0 && !p.repaidAll[l.Index] {
			return
		}
	}
	for _, col := range p.st.Collateral {
		if col.Dex != "" || col.Amount != p.withdrawn[col.Index] {
			return
		}
	}
	p.ixs = append(p.ixs, marketIx(p.user, []byte{instr.OpCloseLoan}, txbuild.Meta(p.info.Address, false, true)))
}

// wrapMargin is how far ahead a repay-all of a wrapped-SOL ledger wraps
// interest, in seconds: the transaction lands a little after it is built,
// and whatever is not taken comes back when the wrapped-SOL account closes.
const wrapMargin = 600

// wrapNeed is how much wrapped SOL a repay of ledger l takes at most.
func wrapNeed(l *state.Ledger, amount uint64, all bool, now int64) uint64 {
	if all {
		return l.Outstanding() + l.InterestAt(now+wrapMargin)
	}
	return amount
}

// wrapNative makes a repay of wrapped SOL payable from the wallet's native
// SOL, as a market would build it: when the wallet's wrapped-SOL account
// holds less than need, the transaction first creates the account (if
// missing), transfers the shortfall into it and syncs it; when the account
// did not exist, it is closed back to the wallet at the end, so the
// leftover and its rent return.
func (a *loansAPI) wrapNative(p *loanPlan, need uint64) {
	if need == 0 {
		return
	}
	acct := txbuild.Ata(p.user, solana.WrappedSol)
	_, exists := a.chain.State.Account(acct)
	have := a.chain.State.TokenBalance(p.user, solana.WrappedSol)
	if have >= need {
		return
	}
	data := binary.LittleEndian.AppendUint32(nil, 2)
	data = binary.LittleEndian.AppendUint64(data, need-have)
	wrap := []txbuild.Instruction{
		txbuild.CreateATAIdempotent(p.payer, p.user, solana.WrappedSol),
		{Program: solana.SystemProgramID, Data: data, Accounts: []solana.AccountMeta{txbuild.Meta(p.user, true, true), txbuild.Meta(acct, false, true)}},
		{Program: solana.TokenProgramID, Data: []byte{17}, Accounts: []solana.AccountMeta{txbuild.Meta(acct, false, true)}},
	}
	p.ixs = append(wrap, p.ixs...)
	if !exists {
		p.ixs = append(p.ixs, txbuild.Instruction{Program: solana.TokenProgramID, Data: []byte{9}, Accounts: []solana.AccountMeta{
			txbuild.Meta(acct, false, true), txbuild.Meta(p.user, false, true), txbuild.Meta(p.user, true, false)}})
	}
}
