package sim

import (
	"crypto/sha256"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
	"github.com/keeper-project/keeper/keeper/sim/internal/instr"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/internal/stratupdate"
	"github.com/keeper-project/keeper/keeper/sim/internal/txbuild"
)

// maxItemsPerInstruction bounds the items of one strategy-update instruction (a u8 count).
const maxItemsPerInstruction = 255

// updateStrategy serves E1. The update becomes a list of items (see the package documentation);
// they are packed in order into as few transactions as fit the transaction size limit, so a large
// update comes back as several transactions, to be sent in order. Only the strategy's authority may
// ask (401 otherwise).
func (a *strategiesAPI) updateStrategy(c *call, q apiwire.StrategyUpdateRequest) (any, error) {
	info, st, err := strategyFor(a.world, c, q.Strategy)
	if err != nil {
		return nil, err
	}
	items, err := stratupdate.Items(q, st)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, apiwire.BadRequest("the update changes nothing: give collateralTerms or updateParams")
	}
	groups, err := a.packItems(c, info, items)
	if err != nil {
		return nil, err
	}
	txs, err := a.tx.build(c, info.Mint.Address, groups...)
	if err != nil {
		return nil, err
	}
	return txbuild.ApiTransactions(txs), nil
}

// updateIx returns the strategy-update instruction carrying items.
func updateIx(user, strategy solana.PublicKey, items []instr.TermItem) txbuild.Instruction {
	return marketIx(user, instr.EncodeStrategyUpdate(items), txbuild.Meta(strategy, false, true))
}

// packItems splits items into instruction groups, each a transaction that fits the size limit (with
// room for a hostile change). An update of several transactions is made of steps that apply only in
// order (see execStrategyUpdateStep).
func (a *strategiesAPI) packItems(c *call, info *programs.Strategy, items []instr.TermItem) ([][]txbuild.Instruction, error) {
	var parts [][]instr.TermItem
	var cur []instr.TermItem
	bh := solana.Hash{}
	for _, it := range items {
		next := append(append([]instr.TermItem(nil), cur...), it)
		_, err := txbuild.NewTx(ids.Stranger(), bh, []txbuild.Instruction{updateStepIx(c.wallet, info.Address, [8]byte{}, 0, 1, next), hostileRoom(c.wallet)})
		if err == nil && len(next) <= a.itemsPerTransaction() {
			cur = next
			continue
		}
		if len(cur) == 0 {
			return nil, apiwire.BadRequest("a strategy-update item is too large for one transaction")
		}
		parts = append(parts, cur)
		cur = []instr.TermItem{it}
	}
	parts = append(parts, cur)
	if len(parts) == 1 {
		return [][]txbuild.Instruction{{updateIx(c.wallet, info.Address, cur)}}, nil
	}
	id := updateID(info.Address, items)
	groups := make([][]txbuild.Instruction, len(parts))
	for i, p := range parts {
		groups[i] = []txbuild.Instruction{updateStepIx(c.wallet, info.Address, id, uint8(i), uint8(len(parts)), p)}
	}
	return groups, nil
}

// updateStepIx returns step of a split strategy update.
func updateStepIx(user, strategy solana.PublicKey, id [8]byte, step, total uint8, items []instr.TermItem) txbuild.Instruction {
	return marketIx(user, instr.EncodeStrategyUpdateStep(id, step, total, items), txbuild.Meta(strategy, false, true))
}

// updateID names a split update by its strategy and items: the same update built again has the same
// id, so its later steps continue one that stopped midway.
func updateID(strategy solana.PublicKey, items []instr.TermItem) [8]byte {
	h := sha256.New()
	h.Write(strategy[:])
	h.Write(instr.EncodeStrategyUpdate(items))
	var id [8]byte
	copy(id[:], h.Sum(nil))
	return id
}

// hostileRoom is an instruction as large as the largest hostile addition, used to leave room for it
// when packing.
func hostileRoom(wallet solana.PublicKey) txbuild.Instruction {
	return txbuild.Instruction{Program: solana.TokenProgramID, Data: make([]byte, 35), Accounts: []solana.AccountMeta{
		txbuild.Meta(ids.DerivedKey("room", "a"), false, true), txbuild.Meta(ids.DerivedKey("room", "b"), false, true), txbuild.Meta(wallet, true, false)}}
}

// itemsPerTransaction is the most term items one strategy-update transaction carries.
func (a *strategiesAPI) itemsPerTransaction() int {
	if n := a.market.UpdateItemsPerTransaction; n > 0 {
		return min(n, maxItemsPerInstruction)
	}
	return maxItemsPerInstruction
}

// carriesUpdateStep matches a message with an instruction of the market program that applies step
// (from 0) of a split strategy update.
func carriesUpdateStep(step uint8) func(*solana.Message) bool {
	return func(msg *solana.Message) bool {
		for _, in := range msg.Instructions {
			if int(in.ProgramIDIndex) >= len(msg.AccountKeys) || msg.AccountKeys[in.ProgramIDIndex] != ids.MarketProgramID {
				continue
			}
			// op, update id (8 bytes), step, total
			if d := in.Data; len(d) > 10 && d[0] == instr.OpStrategyUpdateStep && d[9] == step {
				return true
			}
		}
		return false
	}
}
