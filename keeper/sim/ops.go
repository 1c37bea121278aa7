package sim

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// Market program instructions. The data of each is one tag byte followed by its fields, little-endian
// (see the package documentation for the table).
const (
	opRepay              uint8 = 1
	opWithdrawCollateral uint8 = 2
	opCloseLoan          uint8 = 3
	opTransferPosition   uint8 = 4
	opClaimFees          uint8 = 5
	opStrategyUpdate     uint8 = 6
	opStrategyWithdraw   uint8 = 7
	// opStrategyUpdateStep is one transaction of an update split over
	// several: it carries the update's id, its step and the step count, and
	// applies only after the step before it (see execStrategyUpdateStep).
	opStrategyUpdateStep uint8 = 8
)

// Earn and dex program instructions.
const (
	earnOpClaim      uint8 = 1
	dexOpSetRange    uint8 = 1
	dexOpCollectFees uint8 = 2
	dexOpUpdateFees  uint8 = 3
)

// repayOp repays a ledger: Amount of principal (interest after principal), or everything when All.
type repayOp struct {
	Ledger uint8
	Amount uint64
	All    bool
}

func (o repayOp) encode() []byte { return encodeOp(opRepay, o) }

// withdrawCollateralOp returns Amount of the plain-token collateral in slot Index to the borrower.
type withdrawCollateralOp struct {
	Index  uint8
	Amount uint64
}

func (o withdrawCollateralOp) encode() []byte { return encodeOp(opWithdrawCollateral, o) }

// transferPositionOp records the move of the CLMM collateral in slot Index to a new range.
type transferPositionOp struct {
	Index        uint8
	Lower, Upper int32
	Liquidity    uint64
	SlippageBps  uint16
}

func (o transferPositionOp) encode() []byte { return encodeOp(opTransferPosition, o) }

// strategyWithdrawOp pays Amount of idle principal, or all of it, to the strategy's authority.
type strategyWithdrawOp struct {
	Amount uint64
	All    bool
}

func (o strategyWithdrawOp) encode() []byte { return encodeOp(opStrategyWithdraw, o) }

// Strategy-update item kinds.
const (
	itemAddCollateral    uint8 = 1
	itemSetAPY           uint8 = 2
	itemRemoveDuration   uint8 = 3
	itemRemoveCollateral uint8 = 4
	itemSetAllocation    uint8 = 5
	itemSetLTV           uint8 = 6
	itemSetLQT           uint8 = 7
	itemSetMeta          uint8 = 8
	itemSetParam         uint8 = 9
)

// Strategy parameters a setParam item changes.
const (
	paramInterestFee         uint8 = 1
	paramLiquidityBuffer     uint8 = 2
	paramOriginationCap      uint8 = 3
	paramOriginationFee      uint8 = 4
	paramPrincipalFee        uint8 = 5
	paramOriginationsEnabled uint8 = 6
	paramExternalYieldSource uint8 = 7
)

// termItem is one change of a strategy update. Which fields are used depends on Kind.
type termItem struct {
	Kind         uint8
	Asset        solana.PublicKey // every kind but setParam
	DurationType uint8            // setAPY, removeDuration
	Duration     uint32           // setAPY, removeDuration
	Param        uint8            // setParam
	Value        int64            // setAPY (cBPS), setLTV, setLQT (cBPS), setParam
	Key          string           // setMeta
	Text         string           // setAllocation, setMeta
}

// encodeTo appends the item to w.
func (it termItem) encodeTo(w *dataWriter) {
	w.u8(it.Kind)
	if it.Kind == itemSetParam {
		w.u8(it.Param)
		w.i64(it.Value)
		return
	}
	w.key(it.Asset)
	switch it.Kind {
	case itemSetAPY:
		w.u8(it.DurationType)
		w.u32(it.Duration)
		w.i64(it.Value)
	case itemRemoveDuration:
		w.u8(it.DurationType)
		w.u32(it.Duration)
	case itemSetAllocation:
		w.str(it.Text)
	case itemSetLTV, itemSetLQT:
		w.i64(it.Value)
	case itemSetMeta:
		w.str(it.Key)
		w.str(it.Text)
	}
}

// decodeTermItem reads one item from r.
func decodeTermItem(r *dataReader) (termItem, error) {
	it := termItem{Kind: r.u8()}
	if it.Kind == itemSetParam {
		it.Param = r.u8()
		it.Value = r.i64()
		return it, r.err
	}
	it.Asset = r.key()
	switch it.Kind {
	case itemAddCollateral, itemRemoveCollateral:
	case itemSetAPY:
		it.DurationType, it.Duration, it.Value = r.u8(), r.u32(), r.i64()
	case itemRemoveDuration:
		it.DurationType, it.Duration = r.u8(), r.u32()
	case itemSetAllocation:
		it.Text = r.str()
	case itemSetLTV, itemSetLQT:
		it.Value = r.i64()
	case itemSetMeta:
		it.Key, it.Text = r.str(), r.str()
	default:
		return it, fmt.Errorf("unknown strategy-update item %d", it.Kind)
	}
	return it, r.err
}

// encodeStrategyUpdateStep returns the data of step of a split update of total steps, id naming the
// update, carrying items.
func encodeStrategyUpdateStep(id [8]byte, step, total uint8, items []termItem) []byte {
	w := dataWriter{}
	w.u8(opStrategyUpdateStep)
	w.b = append(w.b, id[:]...)
	w.u8(step)
	w.u8(total)
	w.u8(uint8(len(items)))
	for _, it := range items {
		it.encodeTo(&w)
	}
	return w.b
}

// encodeStrategyUpdate returns the data of one strategy-update instruction carrying items.
func encodeStrategyUpdate(items []termItem) []byte {
	w := dataWriter{}
	w.u8(opStrategyUpdate)
	w.u8(uint8(len(items)))
	for _, it := range items {
		it.encodeTo(&w)
	}
	return w.b
}

// encodeTransferRange returns the data of the dex-a set-range instruction.
func encodeTransferRange(lower, upper int32) []byte {
	w := dataWriter{}
	w.u8(dexOpSetRange)
	w.i32(lower)
	w.i32(upper)
	return w.b
}
