package programs

import (
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
)

// Custom error codes of the simulator's programs (Custom(code) on the wire, with a log line).
const (
	errCodeWrongAccount     = 6000 // an account is not the one the instruction needs
	errCodeUnauthorized     = 6001 // the signer is not the borrower or the strategy's authority
	errCodeNothingOwed      = 6002 // nothing to repay on the ledger
	errCodeRequestNotFound  = 6003 // the withdrawal request account does not exist (claimed)
	errCodeRequestNotFilled = 6004 // the withdrawal request is not fully filled
	errCodeInvalidRange     = 6005 // a CLMM range is not valid for the pool
	errCodeLoanHasDebt      = 6006 // collateral withdrawal or close with debt outstanding
	errCodeInsufficientIdle = 6007 // the strategy holds less idle principal than asked
	errCodeBadUpdate        = 6008 // a strategy-update item cannot apply
	errCodeUpdateOrder      = 6009 // a step of a split strategy update arrived before the step it follows
)

// programError returns a custom program error with a message for the logs.
func programError(code uint32, format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), svm.CustomError(code))
}

// opAccounts is how many accounts each market instruction needs, by tag (an array, not a map, so
// that it is laid out by the linker rather than built at start-up: see lazy).
var opAccounts = [...]int{
	instr.OpRepay: repayAccounts, instr.OpWithdrawCollateral: withdrawCollateralAccounts, instr.OpCloseLoan: 3,
	instr.OpTransferPosition: transferPositionAccounts, instr.OpClaimFees: claimFeesAccounts, instr.OpStrategyUpdate: 3,
	instr.OpStrategyWithdraw: strategyWithdrawAccounts, instr.OpStrategyUpdateStep: 3,
}

// accountsFor returns how many accounts the market instruction with tag op needs: none for an
// unknown tag, which fails later as unknown.
func accountsFor(op uint8) int {
	if int(op) < len(opAccounts) {
		return opAccounts[op]
	}
	return 0
}

// marketCtx is what every market instruction starts from: the user (account 0), who signed, and the
// co-signer (account 1), who must have signed too.
type marketCtx struct {
	x    *svm.Exec
	in   svm.Instruction
	user solana.PublicKey
	now  int64
	txn  string
}

// ExecuteMarket runs one instruction of the market program.
func (w *Catalog) ExecuteMarket(x *svm.Exec, in svm.Instruction) error {
	if len(in.Data) == 0 {
		return svm.ErrInvalidInstructionData
	}
	if len(in.Accounts) < 2 {
		return svm.ErrNotEnoughAccountKeys
	}
	// A user that is a program address signed through its program (a multisig vault's
	// execution); the market waives its co-signature then (see marketIx).
	cosigned := in.Accounts[1].IsSigner || !in.Accounts[0].PublicKey.IsOnCurve()
	if in.Accounts[1].PublicKey != ids.CoSigner() || !cosigned {
		return programError(errCodeUnauthorized, "the market co-signer %s must sign", ids.CoSigner())
	}
	user := in.Accounts[0]
	if !user.IsSigner {
		return svm.ErrMissingRequiredSignature
	}
	c := &marketCtx{x: x, in: in, user: user.PublicKey, now: x.Block().Time.Unix(), txn: fmt.Sprintf("slot-%d-ix-%d", x.Block().Slot, x.InstructionIndex())}
	if need := accountsFor(in.Data[0]); len(in.Accounts) < need {
		return svm.ErrNotEnoughAccountKeys
	}
	r := &instr.DataReader{B: in.Data[1:]}
	switch in.Data[0] {
	case instr.OpRepay:
		return w.execRepay(c, instr.ReadOp[instr.RepayOp](r), r)
	case instr.OpWithdrawCollateral:
		return w.execWithdrawCollateral(c, instr.ReadOp[instr.WithdrawCollateralOp](r), r)
	case instr.OpCloseLoan:
		return execCloseLoan(c, r)
	case instr.OpTransferPosition:
		return w.execTransferPosition(c, instr.ReadOp[instr.TransferPositionOp](r), r)
	case instr.OpClaimFees:
		return w.execClaimFees(c, r.U8(), r)
	case instr.OpStrategyUpdate:
		return execStrategyUpdate(c, r)
	case instr.OpStrategyUpdateStep:
		return execStrategyUpdateStep(c, r)
	case instr.OpFlashBorrow, instr.OpFlashRepay:
		return w.execFlash(c, in.Data[0], instr.ReadOp[instr.FlashOp](r), r)
	case instr.OpSwapWithdraw:
		return w.execSwapWithdraw(c, instr.ReadOp[instr.WithdrawCollateralOp](r), r)
	case instr.OpStrategyWithdraw:
		return execStrategyWithdraw(c, instr.ReadOp[instr.StrategyWithdrawOp](r), r)
	}
	return svm.ErrInvalidInstructionData
}

// account returns instruction account i.
func (c *marketCtx) account(i int) (solana.PublicKey, error) {
	if i >= len(c.in.Accounts) {
		return solana.PublicKey{}, svm.ErrNotEnoughAccountKeys
	}
	return c.in.Accounts[i].PublicKey, nil
}

// loadOwned checks that r holds no more data, then reads the market
// program's account 2 (the loan or strategy an instruction changes) and
// decodes it as what; an account of another owner or data that does not
// decode is the wrong account.
func loadOwned[T any](c *marketCtx, r *instr.DataReader, what string, decode func([]byte) (*T, error)) (solana.PublicKey, *T, error) {
	if err := finish(r); err != nil {
		return solana.PublicKey{}, nil, err
	}
	key, err := c.account(2)
	if err != nil {
		return key, nil, err
	}
	a, err := c.x.Account(key)
	if err != nil {
		return key, nil, err
	}
	if a.Owner != ids.MarketProgramID {
		return key, nil, programError(errCodeWrongAccount, "account %s is not a %s", key, what)
	}
	v, err := decode(a.Data)
	if err != nil {
		return key, nil, programError(errCodeWrongAccount, "%v", err)
	}
	return key, v, nil
}

// loadLoan checks that r holds no more data, then reads the loan at account 2 and checks that the user
// is its borrower.
func (c *marketCtx) loadLoan(r *instr.DataReader) (solana.PublicKey, *state.Loan, error) {
	key, l, err := loadOwned(c, r, "loan", state.DecodeLoan)
	if err != nil {
		return key, nil, err
	}
	if l.Borrower != c.user.String() {
		return key, nil, programError(errCodeUnauthorized, "%s is not the borrower of loan %s", c.user, key)
	}
	if l.Closed {
		return key, nil, programError(errCodeWrongAccount, "loan %s is closed", key)
	}
	return key, l, nil
}

// saveLoan writes a loan back.
func (c *marketCtx) saveLoan(key solana.PublicKey, l *state.Loan) error {
	l.Touch(c.now, c.txn)
	data, err := state.EncodeLoan(l)
	if err != nil {
		return err
	}
	return c.x.SetData(key, data)
}

// finish checks that the instruction data was read exactly.
func finish(r *instr.DataReader) error {
	if err := r.Done(); err != nil {
		return errors.Join(svm.ErrInvalidInstructionData, err)
	}
	return nil
}
