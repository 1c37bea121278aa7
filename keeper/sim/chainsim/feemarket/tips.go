package feemarket

import (
	"cmp"
	"slices"
	"time"
)

// TipFloorWindow is how many recent slots the tip floor is computed over
// (one minute).
const TipFloorWindow = 150

// tipEMAWeight is the weight of a slot's median landed tip in the moving
// average of the tip floor.
const tipEMAWeight = 0.1

// CompetingTips returns the tips the competing bundles bid in slot, highest
// first; they are drawn from the seed and the slot, so they are the same
// whenever asked.
func (s *Settings) CompetingTips(slot uint64) []uint64 {
	tl := s.tips.at(slot)
	if tl == nil || tl.Bundles == 0 {
		return nil
	}
	r := slotRand(s.seed, "tips", slot)
	out := make([]uint64, tl.Bundles)
	for i := range out {
		out[i] = quantile(tl.Tips, r.Float64())
	}
	slices.SortFunc(out, func(a, b uint64) int { return cmp.Compare(b, a) })
	return out
}

// ClearingTip returns the smallest tip that wins a place in the auction of
// slot: one lamport more than the lowest of the competing bids that fill the
// slot's room, or 0 when they do not fill it.
func (s *Settings) ClearingTip(slot uint64) uint64 {
	tl := s.tips.at(slot)
	if tl == nil {
		return 0
	}
	bids := s.CompetingTips(slot)
	if len(bids) < tl.Room {
		return 0
	}
	return bids[tl.Room-1] + 1
}

// WinningBids returns the competing bids that won slot's auction (none when
// its leader does not run Jito).
func (s *Settings) WinningBids(slot uint64) []uint64 {
	tl := s.tips.at(slot)
	if tl == nil || !s.JitoLeader(slot) {
		return nil
	}
	bids := s.CompetingTips(slot)
	return bids[:min(len(bids), tl.Room)]
}

// TipFloor is what Jito's tip-floor API reports: percentiles of the tips of
// the bundles that landed recently, in lamports.
type TipFloor struct {
	// Time is the time of the newest block.
	Time time.Time
	// P25 to P99 are percentiles (nearest rank) of the landed tips.
	P25, P50, P75, P95, P99 uint64
	// EMA50 is a moving average of each slot's median landed tip.
	EMA50 float64
}

// NewTipFloor computes the tip floor at time at from the tips that landed
// in each slot of the window, oldest first (slots without tips skipped).
func NewTipFloor(at time.Time, bySlot [][]uint64) TipFloor {
	f := TipFloor{Time: at}
	var all []uint64
	seen := false
	for _, won := range bySlot {
		if len(won) == 0 {
			continue
		}
		all = append(all, won...)
		sorted := slices.Sorted(slices.Values(won))
		med := float64(sorted[(len(sorted)-1)/2])
		if !seen {
			f.EMA50, seen = med, true
			continue
		}
		f.EMA50 = tipEMAWeight*med + (1-tipEMAWeight)*f.EMA50
	}
	if len(all) == 0 {
		return f
	}
	slices.Sort(all)
	rank := func(p int) uint64 { return all[(p*len(all)+99)/100-1] }
	f.P25, f.P50, f.P75, f.P95, f.P99 = rank(25), rank(50), rank(75), rank(95), rank(99)
	return f
}

// LandedTips are the tips of the chain's own bundles that landed, by slot,
// for the recent window.
type LandedTips struct {
	bySlot map[uint64][]uint64
}

// Add records a landed tip and forgets the tips that fell out of the window.
func (l *LandedTips) Add(slot, tip uint64) {
	if l.bySlot == nil {
		l.bySlot = map[uint64][]uint64{}
	}
	l.bySlot[slot] = append(l.bySlot[slot], tip)
	for s := range l.bySlot {
		if s+TipFloorWindow <= slot {
			delete(l.bySlot, s)
		}
	}
}

// In returns the tips that landed in slot.
func (l *LandedTips) In(slot uint64) []uint64 { return l.bySlot[slot] }
