package chainsim

import (
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// runOpts say how to run a transaction.
type runOpts struct {
	pos        svm.BlockPos // the block it executes in
	hashHeight uint64       // the block height at which its blockhash must be valid
	simulate   bool         // a simulation: nothing it writes is kept
	skipHash   bool         // do not check the blockhash (replaceRecentBlockhash)
}

// runtime executes transactions: the built-in programs and those the
// caller registered. It is guarded by the chain's mu.
type runtime struct {
	ledger   *Ledger
	programs map[solana.PublicKey]svm.Program
	rent     bool // apply the rent rule (Options.Rent)
}

// execResult is the outcome of a transaction that ran.
type execResult struct {
	err     *svm.TxError // the instruction error; nil when all succeeded
	logs    []string
	units   uint64
	fee     uint64
	price   uint64 // compute-unit price, micro-lamports
	pre     []uint64
	post    []uint64
	preTok  []svm.TokenBalance
	postTok []svm.TokenBalance
}

// run executes t over parent. A *TxError means t did not run and leaves no
// trace. Otherwise the fee, a durable nonce advance and,
// if every instruction succeeded, the instructions' effects are written to
// parent.
func (rt *runtime) run(parent svm.WritableStore, t *svm.Txn, o runOpts) (*execResult, *svm.TxError) {
	b, terr := rt.precheck(parent, t, o)
	if terr != nil {
		return nil, terr
	}
	res := &execResult{fee: b.Fee(len(t.Sigs)), price: b.Price}
	res.pre, res.preTok = svm.Snapshot(parent, t)
	// The fee is charged before execution, in a simulation too: Agave's
	// account loader debits the fee payer it hands to the programs, and
	// simulateTransaction returns those accounts (svm account_loader.rs
	// validate_fee_payer; runtime bank.rs simulate_transaction_unchecked).
	feeOv := svm.NewOverlay(parent)
	payer := svm.Load(feeOv, t.FeePayer())
	payer.Lamports -= res.fee
	feeOv.Put(t.FeePayer(), &payer)
	nonceUsed := !o.skipHash && !rt.ledger.idx.validAt(t.Msg.RecentBlockhash, o.hashHeight)
	if nonceUsed {
		key, _ := svm.NonceAccountOf(t)
		n, _ := svm.DecodeNonce(svm.Load(feeOv, key))
		n.Nonce = svm.DurableNonceFrom(o.pos.Hash)
		acct := svm.Load(feeOv, key)
		acct.Data = n.Encode()
		feeOv.Put(key, &acct)
	}
	exOv := svm.NewOverlay(feeOv)
	res.err = rt.runInstructions(exOv, t, o.pos, b.Limit, nonceUsed, res)
	if res.err == nil && rt.rent {
		// The rent rule holds between the accounts the programs got (the
		// fee charged) and what they left (Agave svm
		// transaction_account_state_info.rs, rent_calculator.rs).
		res.err = svm.CheckRent(feeOv, exOv, t)
	}
	if res.err == nil {
		exOv.Commit()
	}
	res.post, res.postTok = svm.Snapshot(feeOv, t)
	feeOv.Commit()
	return res, nil
}

// precheck applies the runtime's checks before execution and returns the
// transaction's compute budget.
func (rt *runtime) precheck(st svm.Store, t *svm.Txn, o runOpts) (svm.ComputeBudget, *svm.TxError) {
	b, terr := svm.BudgetOf(t)
	if terr != nil {
		return b, terr
	}
	if terr := t.Resolve(st); terr != nil {
		return b, terr
	}
	if !o.skipHash && !rt.ledger.idx.validAt(t.Msg.RecentBlockhash, o.hashHeight) {
		if _, ok := svm.CheckNonceTx(st, t); !ok {
			return b, svm.ErrBlockhashNotFound
		}
	}
	// The status cache knows a transaction by its message hash: an unsigned
	// copy of a landed transaction (simulated without sigVerify) is already
	// processed too (Agave bank/check_transactions.rs get_processed_slot).
	if _, dup := rt.ledger.txs[t.ID()]; dup || rt.ledger.msgs[svm.MessageHash(t)] {
		return b, svm.ErrAlreadyProcessed
	}
	payer, ok := st.Get(t.FeePayer())
	switch {
	case !ok:
		return b, svm.ErrAccountNotFound
	case payer.Owner != solana.SystemProgramID:
		return b, svm.ErrInvalidAccountForFee
	case payer.Lamports < b.Fee(len(t.Sigs)):
		return b, svm.ErrInsufficientFundsForFee
	}
	if !rt.rent {
		return b, nil
	}
	return b, svm.CheckFeePayerRent(st, t, b.Fee(len(t.Sigs)))
}

// runInstructions runs t's instructions in order over st, stopping at the
// first failure. When nonceUsed, instruction 0 (AdvanceNonceAccount) was
// already applied.
func (rt *runtime) runInstructions(st *svm.Overlay, t *svm.Txn, pos svm.BlockPos, limit uint64, nonceUsed bool, res *execResult) *svm.TxError {
	m := &svm.Meter{Limit: limit}
	defer func() { res.units = m.Used }()
	for i := range t.Msg.Instructions {
		ix := t.Instruction(i)
		if i == 0 && nonceUsed {
			res.logs = append(res.logs, fmt.Sprintf("Program %s invoke [1]", ix.ProgramID), fmt.Sprintf("Program %s success", ix.ProgramID))
			_ = m.Consume(svm.SystemUnits)
			continue
		}
		x := svm.NewExec(st, ix, i, pos, m, &res.logs).WithInvoker(rt.callProgram)
		x.SetTransaction(t)
		if perr := rt.invoke(x, ix, m); perr != nil {
			return svm.InstructionError(i, perr)
		}
	}
	return nil
}

// invoke runs instruction ix (x's, metered by m) and writes the runtime's log lines around it.
func (rt *runtime) invoke(x *svm.Exec, ix svm.Instruction, m *svm.Meter) *svm.ProgramError {
	id := ix.ProgramID
	x.AppendLog(fmt.Sprintf("Program %s invoke [1]", id))
	left := m.Limit - m.Used
	before := m.Used
	b, isBuiltin := svm.Builtins[id]
	perr := toProgramError(x, rt.callProgram(x, ix))
	if !isBuiltin || !b.Native {
		x.AppendLog(fmt.Sprintf("Program %s consumed %d of %d compute units", id, m.Used-before, left))
	}
	if perr != nil {
		x.AppendLog(fmt.Sprintf("Program %s failed: %s", id, perr))
		return perr
	}
	x.AppendLog(fmt.Sprintf("Program %s success", id))
	return nil
}

// customProgramUnits is the base cost of a registered program's instruction.
const customProgramUnits = 1_000

// callProgram dispatches to a built-in or registered program, recovering a
// registered program's panic.
func (rt *runtime) callProgram(x *svm.Exec, ix svm.Instruction) (err error) {
	if b, ok := svm.Builtins[ix.ProgramID]; ok {
		return b.Run(x, ix)
	}
	p, ok := rt.programs[ix.ProgramID]
	if !ok {
		return svm.ErrUnsupportedProgramID
	}
	defer func() {
		if r := recover(); r != nil {
			x.Logf("panicked: %v", r)
			err = svm.ErrProgramFailedToComplete
		}
	}()
	if err := x.ConsumeUnits(customProgramUnits); err != nil {
		return err
	}
	return p.Execute(x, ix)
}

// toProgramError maps a program's error to the runtime's; an error that is
// not a *ProgramError becomes GenericError with its text logged.
func toProgramError(x *svm.Exec, err error) *svm.ProgramError {
	if err == nil {
		return nil
	}
	var perr *svm.ProgramError
	if errors.As(err, &perr) {
		if err != error(perr) {
			x.Log("Error: " + err.Error())
		}
		return perr
	}
	x.Log("Error: " + err.Error())
	return svm.ErrGenericError
}
