package chainsim

import (
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// runOpts say how to run a transaction.
type runOpts struct {
	pos        blockPos // the block it executes in
	hashHeight uint64   // the block height at which its blockhash must be valid
	simulate   bool     // a simulation: nothing it writes is kept
	skipHash   bool     // do not check the blockhash (replaceRecentBlockhash)
}

// execResult is the outcome of a transaction that ran.
type execResult struct {
	err     *TxError // the instruction error; nil when all succeeded
	logs    []string
	units   uint64
	fee     uint64
	price   uint64 // compute-unit price, micro-lamports
	pre     []uint64
	post    []uint64
	preTok  []tokenBalance
	postTok []tokenBalance
}

// run executes t over parent. A *TxError means t did not run and leaves no
// trace. Otherwise the fee, a durable nonce advance and,
// if every instruction succeeded, the instructions' effects are written to
// parent. The caller holds c.mu.
func (c *Chain) run(parent writableStore, t *txn, o runOpts) (*execResult, *TxError) {
	b, terr := c.precheck(parent, t, o)
	if terr != nil {
		return nil, terr
	}
	res := &execResult{fee: b.fee(len(t.sigs)), price: b.price}
	res.pre, res.preTok = snapshot(parent, t)
	// The fee is charged before execution, in a simulation too: Agave's
	// account loader debits the fee payer it hands to the programs, and
	// simulateTransaction returns those accounts (svm account_loader.rs
	// validate_fee_payer; runtime bank.rs simulate_transaction_unchecked).
	feeOv := newOverlay(parent)
	payer := load(feeOv, t.feePayer())
	payer.Lamports -= res.fee
	feeOv.put(t.feePayer(), &payer)
	nonceUsed := !o.skipHash && !c.validAt(t.msg.RecentBlockhash, o.hashHeight)
	if nonceUsed {
		key, _ := nonceAccountOf(t)
		n, _ := decodeNonce(load(feeOv, key))
		n.nonce = durableNonceFrom(o.pos.hash)
		acct := load(feeOv, key)
		acct.Data = n.encode()
		feeOv.put(key, &acct)
	}
	exOv := newOverlay(feeOv)
	res.err = c.runInstructions(exOv, t, o.pos, b.limit, nonceUsed, res)
	if res.err == nil {
		exOv.commit()
	}
	res.post, res.postTok = snapshot(feeOv, t)
	feeOv.commit()
	return res, nil
}

// precheck applies the runtime's checks before execution and returns the
// transaction's compute budget.
func (c *Chain) precheck(st store, t *txn, o runOpts) (computeBudget, *TxError) {
	b, terr := budgetOf(t)
	if terr != nil {
		return b, terr
	}
	if terr := t.resolve(st); terr != nil {
		return b, terr
	}
	if !o.skipHash && !c.validAt(t.msg.RecentBlockhash, o.hashHeight) {
		if _, ok := checkNonceTx(st, t); !ok {
			return b, ErrBlockhashNotFound
		}
	}
	if _, dup := c.txs[t.id()]; dup {
		return b, ErrAlreadyProcessed
	}
	payer, ok := st.get(t.feePayer())
	switch {
	case !ok:
		return b, ErrAccountNotFound
	case payer.Owner != solana.SystemProgramID:
		return b, ErrInvalidAccountForFee
	case payer.Lamports < b.fee(len(t.sigs)):
		return b, ErrInsufficientFundsForFee
	}
	return b, nil
}

// runInstructions runs t's instructions in order over st, stopping at the
// first failure. When nonceUsed, instruction 0 (AdvanceNonceAccount) was
// already applied.
func (c *Chain) runInstructions(st *overlay, t *txn, pos blockPos, limit uint64, nonceUsed bool, res *execResult) *TxError {
	m := &meter{limit: limit}
	defer func() { res.units = m.used }()
	for i := range t.msg.Instructions {
		ix := t.instruction(i)
		if i == 0 && nonceUsed {
			res.logs = append(res.logs, fmt.Sprintf("Program %s invoke [1]", ix.ProgramID), fmt.Sprintf("Program %s success", ix.ProgramID))
			_ = m.consume(systemUnits)
			continue
		}
		x := &Exec{st: st, ix: ix, index: i, pos: pos, meter: m, logs: &res.logs}
		if perr := c.invoke(x); perr != nil {
			return instructionError(i, perr)
		}
	}
	return nil
}

// instruction returns instruction i with its accounts' flags.
func (t *txn) instruction(i int) Instruction {
	ci := t.msg.Instructions[i]
	ix := Instruction{
		ProgramID: t.keys[ci.ProgramIDIndex],
		Accounts:  make([]solana.AccountMeta, len(ci.Accounts)),
		Data:      append([]byte(nil), ci.Data...),
	}
	for j, idx := range ci.Accounts {
		ix.Accounts[j] = solana.AccountMeta{PublicKey: t.keys[idx], IsSigner: t.isSigner(int(idx)), IsWritable: t.writable[idx]}
	}
	return ix
}

// invoke runs one instruction and writes the runtime's log lines around it.
func (c *Chain) invoke(x *Exec) *ProgramError {
	id := x.ix.ProgramID
	x.log(fmt.Sprintf("Program %s invoke [1]", id))
	left := x.meter.limit - x.meter.used
	before := x.meter.used
	b, isBuiltin := builtins[id]
	perr := toProgramError(x, c.callProgram(x))
	if !isBuiltin || !b.native {
		x.log(fmt.Sprintf("Program %s consumed %d of %d compute units", id, x.meter.used-before, left))
	}
	if perr != nil {
		x.log(fmt.Sprintf("Program %s failed: %s", id, perr))
		return perr
	}
	x.log(fmt.Sprintf("Program %s success", id))
	return nil
}

// customProgramUnits is the base cost of a registered program's instruction.
const customProgramUnits = 1_000

// callProgram dispatches to a built-in or registered program, recovering a
// registered program's panic.
func (c *Chain) callProgram(x *Exec) (err error) {
	if b, ok := builtins[x.ix.ProgramID]; ok {
		return b.run(x, x.ix)
	}
	p, ok := c.programs[x.ix.ProgramID]
	if !ok {
		return ErrUnsupportedProgramID
	}
	defer func() {
		if r := recover(); r != nil {
			x.Logf("panicked: %v", r)
			err = ErrProgramFailedToComplete
		}
	}()
	if err := x.ConsumeUnits(customProgramUnits); err != nil {
		return err
	}
	return p.Execute(x, x.ix)
}

// toProgramError maps a program's error to the runtime's; an error that is
// not a *ProgramError becomes GenericError with its text logged.
func toProgramError(x *Exec, err error) *ProgramError {
	if err == nil {
		return nil
	}
	var perr *ProgramError
	if errors.As(err, &perr) {
		if err != error(perr) {
			x.Log("Error: " + err.Error())
		}
		return perr
	}
	x.Log("Error: " + err.Error())
	return ErrGenericError
}
