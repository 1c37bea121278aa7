package instr

import (
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// Market program instructions. The data of each is one tag byte followed by its fields, little-endian
// (see the package documentation for the table).
const (
	OpRepay              uint8 = 1
	OpWithdrawCollateral uint8 = 2
	OpCloseLoan          uint8 = 3
	OpTransferPosition   uint8 = 4
	OpClaimFees          uint8 = 5
	OpStrategyUpdate     uint8 = 6
	OpStrategyWithdraw   uint8 = 7
	// OpStrategyUpdateStep is one transaction of an update split over
	// several: it carries the update's id, its step and the step count, and
	// applies only after the step before it (see execStrategyUpdateStep).
	OpStrategyUpdateStep uint8 = 8
)

// Earn and dex program instructions.
const (
	EarnOpClaim      uint8 = 1
	DexOpSetRange    uint8 = 1
	DexOpCollectFees uint8 = 2
	DexOpUpdateFees  uint8 = 3
)

// RepayOp repays a ledger: Amount of principal (interest after principal), or everything when All.
type RepayOp struct {
	Ledger uint8
	Amount uint64
	All    bool
}

func (o RepayOp) Encode() []byte { return encodeOp(OpRepay, o) }

// WithdrawCollateralOp returns Amount of the plain-token collateral in slot Index to the borrower.
type WithdrawCollateralOp struct {
	Index  uint8
	Amount uint64
}

func (o WithdrawCollateralOp) Encode() []byte { return encodeOp(OpWithdrawCollateral, o) }

// TransferPositionOp records the move of the CLMM collateral in slot Index to a new range.
type TransferPositionOp struct {
	Index        uint8
	Lower, Upper int32
	Liquidity    uint64
	SlippageBps  uint16
}

func (o TransferPositionOp) Encode() []byte { return encodeOp(OpTransferPosition, o) }

// StrategyWithdrawOp pays Amount of idle principal, or all of it, to the strategy's authority.
type StrategyWithdrawOp struct {
	Amount uint64
	All    bool
}

func (o StrategyWithdrawOp) Encode() []byte { return encodeOp(OpStrategyWithdraw, o) }

// Strategy-update item kinds.
const (
	ItemAddCollateral    uint8 = 1
	ItemSetAPY           uint8 = 2
	ItemRemoveDuration   uint8 = 3
	ItemRemoveCollateral uint8 = 4
	ItemSetAllocation    uint8 = 5
	ItemSetLTV           uint8 = 6
	ItemSetLQT           uint8 = 7
	ItemSetMeta          uint8 = 8
	ItemSetParam         uint8 = 9
)

// Strategy parameters a setParam item changes.
const (
	ParamInterestFee         uint8 = 1
	ParamLiquidityBuffer     uint8 = 2
	ParamOriginationCap      uint8 = 3
	ParamOriginationFee      uint8 = 4
	ParamPrincipalFee        uint8 = 5
	ParamOriginationsEnabled uint8 = 6
	ParamExternalYieldSource uint8 = 7
)

// TermItem is one change of a strategy update. Which fields are used depends on Kind.
type TermItem struct {
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
func (it TermItem) encodeTo(w *dataWriter) {
	w.u8(it.Kind)
	if it.Kind == ItemSetParam {
		w.u8(it.Param)
		w.i64(it.Value)
		return
	}
	w.key(it.Asset)
	switch it.Kind {
	case ItemSetAPY:
		w.u8(it.DurationType)
		w.u32(it.Duration)
		w.i64(it.Value)
	case ItemRemoveDuration:
		w.u8(it.DurationType)
		w.u32(it.Duration)
	case ItemSetAllocation:
		w.str(it.Text)
	case ItemSetLTV, ItemSetLQT:
		w.i64(it.Value)
	case ItemSetMeta:
		w.str(it.Key)
		w.str(it.Text)
	}
}

// DecodeTermItem reads one item from r.
func DecodeTermItem(r *DataReader) (TermItem, error) {
	it := TermItem{Kind: r.U8()}
	if it.Kind == ItemSetParam {
		it.Param = r.U8()
		it.Value = r.i64()
		return it, r.err
	}
	it.Asset = r.key()
	switch it.Kind {
	case ItemAddCollateral, ItemRemoveCollateral:
	case ItemSetAPY:
		it.DurationType, it.Duration, it.Value = r.U8(), r.u32(), r.i64()
	case ItemRemoveDuration:
		it.DurationType, it.Duration = r.U8(), r.u32()
	case ItemSetAllocation:
		it.Text = r.str()
	case ItemSetLTV, ItemSetLQT:
		it.Value = r.i64()
	case ItemSetMeta:
		it.Key, it.Text = r.str(), r.str()
	default:
		return it, fmt.Errorf("unknown strategy-update item %d", it.Kind)
	}
	return it, r.err
}

// EncodeStrategyUpdateStep returns the data of step of a split update of total steps, id naming the
// update, carrying items.
func EncodeStrategyUpdateStep(id [8]byte, step, total uint8, items []TermItem) []byte {
	w := dataWriter{}
	w.u8(OpStrategyUpdateStep)
	w.b = append(w.b, id[:]...)
	w.u8(step)
	w.u8(total)
	w.u8(uint8(len(items)))
	for _, it := range items {
		it.encodeTo(&w)
	}
	return w.b
}

// EncodeStrategyUpdate returns the data of one strategy-update instruction carrying items.
func EncodeStrategyUpdate(items []TermItem) []byte {
	w := dataWriter{}
	w.u8(OpStrategyUpdate)
	w.u8(uint8(len(items)))
	for _, it := range items {
		it.encodeTo(&w)
	}
	return w.b
}

// EncodeTransferRange returns the data of the dex-a set-range instruction.
func EncodeTransferRange(lower, upper int32) []byte {
	w := dataWriter{}
	w.u8(DexOpSetRange)
	w.i32(lower)
	w.i32(upper)
	return w.b
}

// Term is a loan term: Duration units of DurationType (0 days, 1 weeks, 2 months, 3 minutes,
// 4 years), the spec's strategy duration.
type Term struct {
	DurationType int32
	Duration     int32
}

// Units of a Term.
const (
	TermDays    int32 = 0
	TermWeeks   int32 = 1
	TermMonths  int32 = 2
	TermMinutes int32 = 3
	TermYears   int32 = 4
)

// Key returns the term's key in a strategy's duration maps: the spec's serialized strategy duration,
// {"durationType":T,"duration":N}, durationType first, no spaces.
func (t Term) Key() string {
	return fmt.Sprintf(`{"durationType":%d,"duration":%d}`, t.DurationType, t.Duration)
}
