package sim

import (
	"encoding/base64"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/txbuild"
)

// collateralStep adds the instructions of a flashBorrow or swapCollateral step of E2, the steps of a
// repay paid from collateral, as market.CollateralRepayLayout lays them out (docs/assumptions.md):
//
//   - flashBorrow {repayParams: [{amount, ledgerIndex}]} lends amount of the ledger's principal to the
//     borrower; the market program refuses it unless a flash repayment follows in the transaction;
//   - swapCollateral {collateralWithdrawalParams, setupIxs, cpiIxs, setupLuts, cpiLuts, unifySetup}
//     withdraws the collateral (the loan must stay healthy), runs cpiIxs as given, then repays every
//     flash loan of the earlier steps from the borrower's wallet; setupIxs go where every step's do
//     (api_build_setup.go: first in the transaction with unifySetup, else in one of their own).
//
// The simulator has no address lookup tables, so it refuses any lut, and it can sign for no one, so
// an account of the caller's instructions may sign only when it is the borrower or the payer.
func (p *loanPlan) collateralStep(i int, step apiwire.Step, loan string) error {
	pr := step.Params
	if pr.Loan != "" && pr.Loan != loan {
		return apiwire.BadRequest("steps[%d].params.loan %s differs from loan %s", i, pr.Loan, loan)
	}
	if pr.StakeInstructions != nil || len(pr.WeightMatrixUpdates) > 0 || pr.CloseIfPossible != nil {
		return apiwire.BadRequest("steps[%d].params: staking, weight updates and closeIfPossible do not belong to a %s step", i, step.Type)
	}
	if step.Type == apiwire.StepFlashBorrow {
		return p.flashBorrow(i, pr)
	}
	return p.swapCollateral(i, pr)
}

// flashBorrow adds the flash loans of a flashBorrow step.
func (p *loanPlan) flashBorrow(i int, pr apiwire.StepParams) error {
	if len(pr.RepayParams) == 0 || len(pr.CollateralWithdrawalParams)+len(pr.CpiIxs)+len(pr.SetupIxs) > 0 {
		return apiwire.BadRequest("steps[%d].params: a flashBorrow step carries repayParams (the amount to lend) and nothing else", i)
	}
	for j, rp := range pr.RepayParams {
		l, ok := p.st.LedgerAt(rp.LedgerIndex)
		switch {
		case !ok || rp.LedgerIndex > 255:
			return apiwire.BadRequest("steps[%d].params.repayParams[%d].ledgerIndex %d: loan has no such ledger", i, j, rp.LedgerIndex)
		case rp.Amount == 0 || rp.RepayAll:
			return apiwire.BadRequest("steps[%d].params.repayParams[%d]: a flash loan needs a positive amount, not repayAll", i, j)
		}
		op := instr.FlashOp{Ledger: uint8(rp.LedgerIndex), Amount: uint64(rp.Amount)}
		mint := solana.MustPublicKeyFromBase58(l.PrincipalMint)
		p.ixs = append(p.ixs, txbuild.CreateATAIdempotent(p.payer, p.user, mint),
			marketIx(p.user, op.EncodeBorrow(), append(p.flashAccounts(l.Strategy, mint), txbuild.Meta(svm.SysvarInstructions, false, false))...))
		p.flash = append(p.flash, op)
	}
	return nil
}

// flashAccounts returns the accounts of a flash instruction after the user and co-signer.
func (p *loanPlan) flashAccounts(strategy string, mint solana.PublicKey) []solana.AccountMeta {
	s := solana.MustPublicKeyFromBase58(strategy)
	return []solana.AccountMeta{txbuild.Meta(p.info.Address, false, true), txbuild.Meta(s, false, false),
		txbuild.Meta(txbuild.Ata(p.user, mint), false, true), txbuild.Meta(txbuild.Ata(s, mint), false, true),
		txbuild.Meta(mint, false, false), txbuild.Meta(solana.TokenProgramID, false, false)}
}

// swapCollateral adds the withdrawal, the caller's swap and the flash repayments of a swapCollateral step.
func (p *loanPlan) swapCollateral(i int, pr apiwire.StepParams) error {
	switch {
	case len(pr.CollateralWithdrawalParams) == 0 || len(pr.CpiIxs) == 0:
		return apiwire.BadRequest("steps[%d].params: a swapCollateral step needs collateralWithdrawalParams and cpiIxs", i)
	case len(pr.RepayParams) > 0:
		return apiwire.BadRequest("steps[%d].params.repayParams: repay in a repay step", i)
	case len(pr.CpiLuts)+len(pr.SetupLuts) > 0:
		return apiwire.BadRequest("steps[%d].params: lookup table %s not found (the simulator has none)", i, append(pr.SetupLuts, pr.CpiLuts...)[0])
	}
	for j, cw := range pr.CollateralWithdrawalParams {
		if err := p.withdraw(i, j, cw); err != nil {
			return err
		}
		// The withdrawal of a swap may leave debt: it is the health-checked variant.
		last := &p.ixs[len(p.ixs)-1]
		last.Data = instr.WithdrawCollateralOp{Index: last.Data[1], Amount: uint64(cw.Amount)}.EncodeSwapWithdraw()
	}
	if err := p.addSetup(i, pr.SetupIxs, pr.UnifySetup != nil && *pr.UnifySetup); err != nil {
		return err
	}
	for j, ix := range pr.CpiIxs {
		t, err := p.callerIx(ix)
		if err != nil {
			return apiwire.BadRequest("steps[%d].params.cpiIxs[%d]: %v", i, j, err)
		}
		p.ixs = append(p.ixs, t)
	}
	for _, op := range p.flash {
		l, _ := p.st.LedgerAt(int(op.Ledger))
		p.ixs = append(p.ixs, marketIx(p.user, op.EncodeRepay(), p.flashAccounts(l.Strategy, solana.MustPublicKeyFromBase58(l.PrincipalMint))...))
	}
	p.flash = nil
	return nil
}

// callerIx converts a caller-supplied instruction.
func (p *loanPlan) callerIx(ix apiwire.Instruction) (txbuild.Instruction, error) {
	prog, err := solana.PublicKeyFromBase58(ix.ProgramID)
	if err != nil {
		return txbuild.Instruction{}, apiwire.BadRequest("programId %q is not base58", ix.ProgramID)
	}
	data, err := base64.StdEncoding.DecodeString(ix.Data)
	if err != nil {
		return txbuild.Instruction{}, apiwire.BadRequest("data is not base64")
	}
	out := txbuild.Instruction{Program: prog, Data: data}
	for _, a := range ix.Accounts {
		k, err := solana.PublicKeyFromBase58(a.Pubkey)
		if err != nil {
			return txbuild.Instruction{}, apiwire.BadRequest("account %q is not base58", a.Pubkey)
		}
		if a.IsSigner && k != p.user && k != p.payer {
			return txbuild.Instruction{}, apiwire.BadRequest("account %s must sign, and only the borrower and payer can", k)
		}
		out.Accounts = append(out.Accounts, txbuild.Meta(k, a.IsSigner, a.IsWritable))
	}
	return out, nil
}
