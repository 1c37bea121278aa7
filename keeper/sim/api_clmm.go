package sim

import (
	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/state"
	"github.com/keeper-project/keeper/keeper/sim/internal/txbuild"
)

// positionFor resolves a position mint of a loan on a dex and returns its collateral slot.
func positionFor(w *programs.Catalog, st *state.Loan, mint, dex string) (*programs.Position, *state.Collateral, error) {
	pos, err := writeTarget("positionMint", "position", mint, w.PosByMint)
	if err != nil {
		return nil, nil, err
	}
	col, ok := st.CollateralByPositionMint(mint)
	switch {
	case !ok:
		return nil, nil, apiwire.BadRequest("position %s is not collateral of this loan", mint)
	case pos.Pool.Dex.Name != dex:
		return nil, nil, apiwire.BadRequest("position %s is a %s position, not %s", mint, pos.Pool.Dex.Name, dex)
	}
	return pos, col, nil
}

// positionWrite is what a write on a collateral position acts on: the loan, the position (a
// collateral slot of the loan) and the position's account as it is now.
type positionWrite struct {
	loan *programs.Loan
	pos  *programs.Position
	col  *state.Collateral
	ps   clmm.Position
}

// resolve resolves a position write: the loan (the caller must be its borrower) and its collateral
// position of mint on dex, read from chain.
func (a *positionsAPI) resolve(c *call, loan, mint, dex string) (positionWrite, error) {
	info, st, err := loanFor(a.world, c, loan)
	if err != nil {
		return positionWrite{}, err
	}
	pos, col, err := positionFor(a.w, st, mint, dex)
	if err != nil {
		return positionWrite{}, err
	}
	ps, _, err := a.accts.position(pos)
	if err != nil {
		return positionWrite{}, err
	}
	return positionWrite{loan: info, pos: pos, col: col, ps: ps}, nil
}

// transferPosition serves E4: it moves a dex-a collateral position to a new tick range with the same
// liquidity. The transaction holds the market's transfer instruction and dex-a's set-range.
func (a *positionsAPI) transferPosition(c *call, q apiwire.TransferPositionRequest) (any, error) {
	pw, err := a.resolve(c, q.Loan, q.PositionMint, clmm.DexA)
	if err != nil {
		return nil, err
	}
	tp := q.TransferParams
	if err := checkTransfer(q, pw); err != nil {
		return nil, err
	}
	info, pos := pw.loan, pw.pos
	op := instr.TransferPositionOp{Index: uint8(pw.col.Index), Lower: tp.TickLowerIndex, Upper: tp.TickUpperIndex,
		Liquidity: uint64(tp.LiquidityAmount), SlippageBps: uint16(tp.Variant.Liquidity.SlippageToleranceBps)}
	oldLo, oldUp := tickArrayKeys(pos.Pool, pw.ps.Range)
	newLo, newUp := tickArrayKeys(pos.Pool, clmm.Range{Lower: tp.TickLowerIndex, Upper: tp.TickUpperIndex})
	ixs := []txbuild.Instruction{
		marketIx(c.wallet, op.Encode(), txbuild.Meta(info.Address, false, true), txbuild.Meta(pos.Address, false, false), txbuild.Meta(pos.Pool.Address, false, false)),
		{Program: ids.DexAProgramID, Data: instr.EncodeTransferRange(tp.TickLowerIndex, tp.TickUpperIndex), Accounts: []solana.AccountMeta{
			txbuild.Meta(pos.Address, false, true), txbuild.Meta(pos.Pool.Address, false, true), txbuild.Meta(ids.CoSigner(), true, false),
			txbuild.Meta(oldLo, false, true), txbuild.Meta(oldUp, false, true), txbuild.Meta(newLo, false, true), txbuild.Meta(newUp, false, true)}},
	}
	return a.tx.one(c, pos.Pool.Mint1.Address, ixs)
}

// checkTransfer validates E4's transfer parameters against the position and its pool.
func checkTransfer(q apiwire.TransferPositionRequest, pw positionWrite) error {
	tp, pos, col, ps := q.TransferParams, pw.pos, pw.col, pw.ps
	rng := clmm.Range{Lower: tp.TickLowerIndex, Upper: tp.TickUpperIndex}
	switch {
	case tp.CollateralIndex != col.Index:
		return apiwire.BadRequest("transferParams.collateralIndex %d: the position is collateral slot %d", tp.CollateralIndex, col.Index)
	case clmm.U128From64(uint64(tp.LiquidityAmount)) != ps.Liquidity:
		return apiwire.BadRequest("transferParams.liquidityAmount %d does not match the position's liquidity %s", tp.LiquidityAmount, ps.Liquidity)
	case tp.Variant.Liquidity == nil:
		return apiwire.BadRequest("transferParams.transferParams.Liquidity is required (the only variant)")
	case tp.Variant.Liquidity.SlippageToleranceBps > 10_000:
		return apiwire.BadRequest("transferParams.transferParams.Liquidity.slippageToleranceBps %d exceeds 10000", tp.Variant.Liquidity.SlippageToleranceBps)
	case q.SlippageDecimals > 100:
		return apiwire.BadRequest("slippageDecimals %v exceeds 100 (percent)", q.SlippageDecimals)
	case rng.Validate() != nil:
		return apiwire.BadRequest("tick range %s: %v", rng, rng.Validate())
	case !rng.Aligned(pos.Pool.TickSpacing):
		return apiwire.BadRequest("tick range %s is not aligned to the pool's tick spacing %d", rng, pos.Pool.TickSpacing)
	}
	return nil
}

// claimFees serves E8: it brings a dex-b collateral position's fees up to date and pays them to the
// borrower, creating the token accounts it needs.
func (a *positionsAPI) claimFees(c *call, q apiwire.ClaimFeesRequest) (any, error) {
	pw, err := a.resolve(c, q.Loan, q.PositionMint, clmm.DexB)
	if err != nil {
		return nil, err
	}
	info, pos, col := pw.loan, pw.pos, pw.col
	m0, m1, pool := pos.Pool.Mint0.Address, pos.Pool.Mint1.Address, pos.Pool.Address
	lower, upper := tickArrayKeys(pos.Pool, pw.ps.Range)
	ixs := []txbuild.Instruction{
		txbuild.CreateATAIdempotent(c.payer, c.wallet, m0),
		txbuild.CreateATAIdempotent(c.payer, c.wallet, m1),
		marketIx(c.wallet, []byte{instr.OpClaimFees, uint8(col.Index)}, txbuild.Meta(info.Address, false, true),
			txbuild.Meta(pos.Address, false, false), txbuild.Meta(pool, false, false)),
		// update_fees_and_rewards first: collect pays only what the position stores.
		{Program: ids.DexBProgramID, Data: []byte{instr.DexOpUpdateFees}, Accounts: []solana.AccountMeta{
			txbuild.Meta(pos.Address, false, true), txbuild.Meta(pool, false, true), txbuild.Meta(ids.CoSigner(), true, false),
			txbuild.Meta(lower, false, false), txbuild.Meta(upper, false, false)}},
		{Program: ids.DexBProgramID, Data: []byte{instr.DexOpCollectFees}, Accounts: []solana.AccountMeta{
			txbuild.Meta(pos.Address, false, true), txbuild.Meta(pool, false, false), txbuild.Meta(ids.CoSigner(), true, false), txbuild.Meta(c.wallet, false, true),
			txbuild.Meta(txbuild.Ata(pool, m0), false, true), txbuild.Meta(txbuild.Ata(pool, m1), false, true), txbuild.Meta(txbuild.Ata(c.wallet, m0), false, true),
			txbuild.Meta(txbuild.Ata(c.wallet, m1), false, true), txbuild.Meta(solana.TokenProgramID, false, false)}},
	}
	return a.tx.one(c, m1, ixs)
}
