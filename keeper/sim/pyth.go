package sim

import (
	"math"
	"time"

	"github.com/keeper-project/keeper/keeper/prices"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// Pyth's sponsored Solana feeds are pushed at least every heartbeat and
// whenever the price moved by more than the deviation since the last push
// (pyth-crosschain push-feeds/data/svm/solana-mainnet.json: time_difference
// 60, price_deviation 0.5).
const (
	pythHeartbeat = 60 * time.Second
	pythDeviation = 0.005
	// pythExponent and pythConfidence shape the published numbers: prices
	// in units of 1e-8 USD, a confidence interval of 0.05 % of the price.
	pythExponent   = -8
	pythConfidence = 0.0005
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
		moved := f.Price > 0 && math.Abs(p-f.Price)/f.Price > pythDeviation
		if !f.At.IsZero() && now.Sub(f.At) < pythHeartbeat && !moved {
			continue
		}
		if p <= 0 {
			continue
		}
		f.Price, f.At = p, now
		units := math.Round(p * math.Pow10(-pythExponent))
		s.chain.SetAccount(f.Account, svm.Account{Lamports: pythRent, Owner: prices.ReceiverProgram,
			Data: prices.EncodeUpdate(prices.Update{WriteAuthority: f.Account, Full: true, Feed: f.ID,
				Price: int64(units), Conf: uint64(math.Round(units * pythConfidence)), Exponent: pythExponent,
				PublishTime: now, PostedSlot: s.chain.Slot()})})
	}
}

// pythRent is the rent-exempt minimum of a 134-byte account.
const pythRent = 1_823_520
