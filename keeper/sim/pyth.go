package sim

import (
	"math"
	"time"

	"github.com/keeper-project/keeper/keeper/prices"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
)

// publishPrices pushes every feed that is due at now: never pushed, past
// its heartbeat, or off the oracle price by more than the deviation. The
// caller holds s.mu.
func (s *Sim) publishPrices(now time.Time) {
	for _, m := range s.w.Mints {
		f := m.Pyth
		if f == nil || f.Halted {
			continue
		}
		p, _ := s.w.Price(m.Address)
		moved := f.Price > 0 && math.Abs(p-f.Price)/f.Price > programs.PythDeviation
		if !f.At.IsZero() && now.Sub(f.At) < programs.PythHeartbeat && !moved {
			continue
		}
		if p <= 0 {
			continue
		}
		f.Price, f.At = p, now
		units := math.Round(p * math.Pow10(-programs.PythExponent))
		s.chain.State.SetAccount(f.Account, svm.Account{Lamports: pythRent, Owner: prices.ReceiverProgram,
			Data: prices.EncodeUpdate(prices.Update{WriteAuthority: f.Account, Full: true, Feed: f.ID,
				Price: int64(units), Conf: uint64(math.Round(units * programs.PythConfidence)), Exponent: programs.PythExponent,
				PublishTime: now, PostedSlot: s.chain.Ledger.Slot()})})
	}
}

// pythRent is the rent-exempt minimum of a 134-byte account.
const pythRent = 1_823_520
