package sim

import (
	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/market"
)

// maxItemsPerInstruction bounds the items of one strategy-update instruction (a u8 count).
const maxItemsPerInstruction = 255

// updateStrategy serves E1. The update becomes a list of items (see the package documentation);
// they are packed in order into as few transactions as fit the transaction size limit, so a large
// update comes back as several transactions, to be sent in order. Only the strategy's authority may
// ask (401 otherwise).
func (s *Sim) updateStrategy(c *call) (any, error) {
	var q market.StrategyUpdateRequest
	if err := decodeBody(c.body, &q); err != nil {
		return nil, err
	}
	info, st, err := s.strategyFor(c, q.Strategy)
	if err != nil {
		return nil, err
	}
	items, err := updateItems(q, st)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, badRequest("the update changes nothing: give collateralTerms or updateParams")
	}
	groups, err := s.packItems(c, info, items)
	if err != nil {
		return nil, err
	}
	txs, err := s.buildTxs(c, info.Mint.Address, groups...)
	if err != nil {
		return nil, err
	}
	out := make([]market.Transaction, len(txs))
	for i, t := range txs {
		out[i] = t.apiTransaction()
	}
	return out, nil
}

// updateIx returns the strategy-update instruction carrying items.
func updateIx(user, strategy solana.PublicKey, items []termItem) ix {
	return marketIx(user, encodeStrategyUpdate(items), meta(strategy, false, true))
}

// packItems splits items into instruction groups, each a transaction that fits the size limit (with
// room for a hostile change).
func (s *Sim) packItems(c *call, info *strategyInfo, items []termItem) ([][]ix, error) {
	var groups [][]ix
	var cur []termItem
	bh := solana.Hash{}
	for _, it := range items {
		next := append(append([]termItem(nil), cur...), it)
		_, err := newBuiltTx(Stranger(), bh, []ix{updateIx(c.wallet, info.Address, next), hostileRoom(c.wallet)})
		if err == nil && len(next) <= maxItemsPerInstruction {
			cur = next
			continue
		}
		if len(cur) == 0 {
			return nil, badRequest("a strategy-update item is too large for one transaction")
		}
		groups = append(groups, []ix{updateIx(c.wallet, info.Address, cur)})
		cur = []termItem{it}
	}
	return append(groups, []ix{updateIx(c.wallet, info.Address, cur)}), nil
}

// hostileRoom is an instruction as large as the largest hostile addition, used to leave room for it
// when packing.
func hostileRoom(wallet solana.PublicKey) ix {
	return ix{Program: solana.TokenProgramID, Data: make([]byte, 35), Accounts: []solana.AccountMeta{
		meta(derivedKey("room", "a"), false, true), meta(derivedKey("room", "b"), false, true), meta(wallet, true, false)}}
}
