package genesis

import (
	"fmt"
	"math"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/prices"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

// priceMoveEvent moves a mint's oracle price by a fraction at a slot. The chain rewrites the mint's
// Pyth account when it reaches the slot (the chain is the truth, and a subscriber of that account is
// notified at that slot); when the sim's clock reaches the slot's time the market takes the price the
// account then holds, and the pusher counts it as pushed, so it does not push it again.
func (c *eventCompiler) priceMoveEvent(pm scenario.PriceMove, slot uint64, at []any) (Event, bool) {
	m := c.mint(pm.Mint, append(at, "mint"), "price_move mint")
	if m == nil {
		return Event{}, false
	}
	if m.Pyth == nil {
		c.failAt(append(at, "mint"), "mint %q has no pyth feed to move", pm.Mint)
		return Event{}, false
	}
	if math.IsNaN(pm.By) || math.IsInf(pm.By, 0) || pm.By <= -1 {
		c.failAt(append(at, "by"), "by must be a fraction above -1 (-0.05 is 5 %% down), got %v", pm.By)
		return Event{}, false
	}
	feed, mint, by := m.Pyth, m.Address, pm.By
	return Event{
		Desc: fmt.Sprintf("price of %s moves by %+.4g at slot %d", pm.Mint, by, slot),
		Setup: func(s Target) {
			when := s.Start().Add(time.Duration(slot) * chainsim.SlotDuration)
			s.Chain().State.ScheduleUpdate(slot, feed.Account, func(a svm.Account, exists bool) (svm.Account, error) {
				return movePythAccount(a, exists, by, slot, when)
			})
		},
		Apply: func(s Target) error {
			a, ok := s.Chain().State.Account(feed.Account)
			if !ok {
				return fmt.Errorf("price move: no price account at %s", feed.Account)
			}
			u, err := prices.DecodeUpdate(a.Data)
			if err != nil {
				return fmt.Errorf("price move: %w", err)
			}
			p := u.Value()
			s.Catalog().SetPrices(map[solana.PublicKey]float64{mint: p})
			s.Catalog().PricesAt.Store(s.Clock().Now().UnixNano())
			feed.Price, feed.At = p, s.Start().Add(time.Duration(slot)*chainsim.SlotDuration)
			return nil
		},
	}, true
}

// movePythAccount returns a PriceUpdateV2 account with its price (and confidence) moved by the
// fraction by, published at when and posted in slot.
func movePythAccount(a svm.Account, exists bool, by float64, slot uint64, when time.Time) (svm.Account, error) {
	if !exists {
		return a, fmt.Errorf("price move at slot %d: the price account does not exist", slot)
	}
	u, err := prices.DecodeUpdate(a.Data)
	if err != nil {
		return a, fmt.Errorf("price move at slot %d: %w", slot, err)
	}
	units := math.Round(float64(u.Price) * (1 + by))
	if units < 1 || units > math.MaxInt64 {
		return a, fmt.Errorf("price move at slot %d: price %v out of range", slot, units)
	}
	u.Price, u.Conf = int64(units), uint64(math.Round(units*programs.PythConfidence))
	u.PublishTime, u.PostedSlot = when, slot
	a.Data = prices.EncodeUpdate(u)
	return a, nil
}
