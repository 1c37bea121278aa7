package instr

// Market program instructions of a repay from collateral (see package sim's api_collateral.go). The
// tags follow the market's others.
const (
	// OpFlashBorrow lends a ledger's principal to the borrower for the rest of the transaction; the
	// program finds its OpFlashRepay later in the same transaction (the Instructions sysvar) or fails.
	OpFlashBorrow uint8 = 20
	// OpFlashRepay pays a flash loan back from the borrower's wallet.
	OpFlashRepay uint8 = 21
	// OpSwapWithdraw withdraws plain-token collateral for a swap while the loan still has debt; the
	// loan must stay above its liquidation threshold.
	OpSwapWithdraw uint8 = 22
)

// FlashOp is the data of OpFlashBorrow and OpFlashRepay: Amount of ledger Ledger's principal.
type FlashOp struct {
	Ledger uint8
	Amount uint64
}

// EncodeBorrow returns the data of OpFlashBorrow.
func (o FlashOp) EncodeBorrow() []byte { return encodeOp(OpFlashBorrow, o) }

// EncodeRepay returns the data of OpFlashRepay.
func (o FlashOp) EncodeRepay() []byte { return encodeOp(OpFlashRepay, o) }

// EncodeSwapWithdraw returns the data of OpSwapWithdraw (the WithdrawCollateralOp layout).
func (o WithdrawCollateralOp) EncodeSwapWithdraw() []byte { return encodeOp(OpSwapWithdraw, o) }

// SwapOpSwap is the swap program's exact-input instruction: sell AmountIn of the input mint for at least
// MinOut of the output mint.
const SwapOpSwap uint8 = 1

// SwapOp is the data of SwapOpSwap.
type SwapOp struct {
	AmountIn uint64
	MinOut   uint64
}

// Encode returns the instruction data.
func (o SwapOp) Encode() []byte { return encodeOp(SwapOpSwap, o) }

// SwapOpExactOut is the swap program's exact-output instruction: buy exactly AmountOut of the output
// mint for at most MaxIn of the input mint, spending only what the pool's curve needs. Jupiter's
// exactOutRoute takes the quote's inAmount and slippageBps and derives the same cap on chain.
const SwapOpExactOut uint8 = 2

// SwapExactOutOp is the data of SwapOpExactOut.
type SwapExactOutOp struct {
	AmountOut uint64
	MaxIn     uint64
}

// Encode returns the instruction data.
func (o SwapExactOutOp) Encode() []byte { return encodeOp(SwapOpExactOut, o) }
