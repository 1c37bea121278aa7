// Package feemarket is the model of Solana's fee market that package
// chainsim's leader follows: the block limits and cost model of Agave's cost
// tracker, the scheduler's priority, competing loads and their draws,
// Agave's prioritization fee cache, which leaders run the Jito client and the
// competing bids of Jito's tip auction. It holds no lock: chainsim guards it
// with the chain's. See chainsim's documentation for how the pieces fit.
package feemarket

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gagliardetto/solana-go"
)

// Block limits of Agave's cost tracker as Agave's master branch has them in
// cost-model/src/block_cost_limits.rs (2026): MAX_BLOCK_UNITS is 60M since
// SIMD-0256 (48M before SIMD-0207, 50M between), MAX_WRITABLE_ACCOUNT_UNITS
// 24M, 40 % of the block since SIMD-0306 (12M before). SIMD-0286's 100M
// block is a feature not yet folded into the constants. The current values
// are the defaults because keeper lands on today's cluster; [BlockLimits]
// sets others.
const (
	DefaultMaxBlockUnits           = 60_000_000
	DefaultMaxWritableAccountUnits = 24_000_000
)

// DefaultLoadUnits is the compute-unit limit a competing transaction of a
// [Load] requests when Load.Units is zero.
const DefaultLoadUnits = 200_000

// DefaultLoadDemand is Load.Demand when it is zero: twice what an account
// takes, so that half of the load lands and the clearing price is about the
// load's median.
const DefaultLoadDemand = 2.0

// leaderSlots is how many consecutive slots one leader produces
// (NUM_CONSECUTIVE_LEADER_SLOTS).
const leaderSlots = 4

// BlockLimits are the compute budget of a block as Agave's cost tracker
// counts it: the cost of every transaction of the block, and of those that
// write-lock one account. Zero fields take the defaults.
type BlockLimits struct {
	Block           uint64
	WritableAccount uint64
}

// WithDefaults fills zero fields.
func (b BlockLimits) WithDefaults() BlockLimits {
	b.Block = cmp.Or(b.Block, DefaultMaxBlockUnits)
	b.WritableAccount = cmp.Or(b.WritableAccount, DefaultMaxWritableAccountUnits)
	return b
}

// Validate reports a per-account limit above the block's.
func (b BlockLimits) Validate() error {
	if b.WritableAccount > b.Block {
		return fmt.Errorf("block limits: writable-account limit %d above the block limit %d", b.WritableAccount, b.Block)
	}
	return nil
}

// Load is competing traffic: in every slot, transactions that each
// write-lock one of Accounts (in turn) and bid a compute-unit price drawn
// from Prices. They are not real transactions: they take block space, and
// their prices are what getRecentPrioritizationFees sees, as other users'
// transactions would be.
type Load struct {
	// Accounts are the accounts the load write-locks; at least one.
	Accounts []solana.PublicKey
	// Prices are quantiles of the bid compute-unit price (micro-lamports per
	// unit), evenly spaced from the lowest bid to the highest and
	// interpolated linearly in between: [p] is a fixed price, [lo, hi]
	// uniform, [p0, p25, p50, p75, p100] quartiles. Non-decreasing.
	Prices []uint64
	// Units is the compute-unit limit each competing transaction requests
	// and uses; zero means DefaultLoadUnits.
	Units uint64
	// Demand is the compute the load asks of each of its accounts per slot,
	// in multiples of the writable-account limit; zero means
	// DefaultLoadDemand. Above 1, only the best-paying part of it lands.
	Demand float64
}

// withDefaults fills zero fields.
func (l Load) withDefaults() Load {
	l.Units = cmp.Or(l.Units, DefaultLoadUnits)
	l.Demand = cmp.Or(l.Demand, DefaultLoadDemand)
	return l
}

// Validate reports the first invalid field, zero fields defaulted.
func (l Load) Validate() error {
	l = l.withDefaults()
	switch {
	case len(l.Accounts) == 0:
		return errors.New("load: no account")
	case len(l.Prices) == 0:
		return errors.New("load: no price")
	case !slices.IsSorted(l.Prices):
		return fmt.Errorf("load: prices %v are not in increasing order", l.Prices)
	case l.Units > 1_400_000:
		return fmt.Errorf("load: units %d above the 1,400,000 a transaction may request", l.Units)
	case !(l.Demand > 0 && l.Demand <= 100):
		return fmt.Errorf("load: demand %g, want a multiple of the account limit in (0, 100]", l.Demand)
	}
	return nil
}

// TipLoad is the competing bids of the Jito auction: in every slot of a Jito
// leader, Bundles other bundles bid tips drawn from Tips, and the Room
// best-paying bundles win the slot.
type TipLoad struct {
	// Tips are quantiles of the competing tips in lamports, as
	// Load.Prices.
	Tips []uint64
	// Bundles is how many bundles compete in a slot.
	Bundles int
	// Room is how many bundles a slot takes; a bundle lands only if fewer
	// than Room competing bundles bid at least its tip.
	Room int
}

// Validate reports the first invalid field.
func (t TipLoad) Validate() error {
	switch {
	case len(t.Tips) == 0:
		return errors.New("tip load: no tip")
	case !slices.IsSorted(t.Tips):
		return fmt.Errorf("tip load: tips %v are not in increasing order", t.Tips)
	case t.Bundles < 0 || t.Bundles > 10_000:
		return fmt.Errorf("tip load: bundles %d, want 0 to 10000", t.Bundles)
	case t.Room < 1:
		return fmt.Errorf("tip load: room %d, want at least 1", t.Room)
	}
	return nil
}

// change is a setting that takes effect from a slot on.
type change[T any] struct {
	from uint64
	v    T
}

// schedule is a setting over slots: its changes, by slot.
type schedule[T any] []change[T]

// set makes v the setting from slot from on (until a later change).
func (s *schedule[T]) set(from uint64, v T) {
	i, found := slices.BinarySearchFunc(*s, from, func(c change[T], f uint64) int { return cmp.Compare(c.from, f) })
	if found {
		(*s)[i].v = v
		return
	}
	*s = slices.Insert(*s, i, change[T]{from: from, v: v})
}

// at returns the setting in slot, or the zero value before any change.
func (s schedule[T]) at(slot uint64) T {
	i, found := slices.BinarySearchFunc(s, slot, func(c change[T], f uint64) int { return cmp.Compare(c.from, f) })
	if !found {
		i--
	}
	if i < 0 {
		var zero T
		return zero
	}
	return s[i].v
}

// Settings are the fee market's settings over slots: the loads, the share of
// leaders without the Jito client and the competing tips, each scheduled
// from a slot on, and the seed the draws come from.
type Settings struct {
	seed    uint64
	loads   schedule[*Load]
	tips    schedule[*TipLoad]
	nonJito schedule[float64]
}

// NewSettings returns settings drawing from seed, with a share nonJito of
// leaders without the Jito client from slot 0.
func NewSettings(seed uint64, nonJito float64) *Settings {
	s := &Settings{seed: seed}
	if nonJito > 0 {
		s.nonJito.set(0, nonJito)
	}
	return s
}

// SetLoad turns the load on (nil: off) from slot from on.
func (s *Settings) SetLoad(from uint64, l *Load) error {
	if l != nil {
		if err := l.Validate(); err != nil {
			return err
		}
		d := l.withDefaults()
		d.Accounts, d.Prices = slices.Clone(d.Accounts), slices.Clone(d.Prices)
		l = &d
	}
	s.loads.set(from, l)
	return nil
}

// SetTipLoad sets the competing tips (nil: none) from slot from on.
func (s *Settings) SetTipLoad(from uint64, t *TipLoad) error {
	if t != nil {
		if err := t.Validate(); err != nil {
			return err
		}
		d := *t
		d.Tips = slices.Clone(d.Tips)
		t = &d
	}
	s.tips.set(from, t)
	return nil
}

// SetNonJitoShare sets the share of leaders without the Jito client from
// slot from on.
func (s *Settings) SetNonJitoShare(from uint64, share float64) error {
	if !(share >= 0 && share <= 1) {
		return fmt.Errorf("non-Jito share %g, want a fraction in [0, 1]", share)
	}
	s.nonJito.set(from, share)
	return nil
}

// LoadAt returns the load on in slot, or nil.
func (s *Settings) LoadAt(slot uint64) *Load { return s.loads.at(slot) }

// HasLoads reports whether a load was ever scheduled.
func (s *Settings) HasLoads() bool { return len(s.loads) > 0 }

// JitoLeader reports whether the leader of slot runs the Jito client.
// Leaders take turns of 4 slots; whether one runs Jito is drawn from the
// seed and its turn, so the schedule is the same on every run.
func (s *Settings) JitoLeader(slot uint64) bool {
	share := s.nonJito.at(slot)
	if share <= 0 {
		return true
	}
	return drawUnit(s.seed, "jito leader", slot/leaderSlots) >= share
}

// drawUnit returns a number in [0, 1) drawn from seed, a purpose and n.
func drawUnit(seed uint64, purpose string, n uint64) float64 {
	return float64(drawSeed(seed, purpose, n)>>11) / (1 << 53)
}

// drawSeed returns a 64-bit seed derived from seed, a purpose and n.
func drawSeed(seed uint64, purpose string, n uint64) uint64 {
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], seed)
	binary.LittleEndian.PutUint64(buf[8:], n)
	h := sha256.Sum256(append([]byte("chainsim "+purpose), buf[:]...))
	return binary.LittleEndian.Uint64(h[:8])
}

// slotRand returns the random stream of slot for a purpose.
func slotRand(seed uint64, purpose string, slot uint64) *rand.Rand {
	return rand.New(rand.NewPCG(drawSeed(seed, purpose, slot), slot))
}

// quantile returns the value at u in [0, 1) of the distribution whose evenly
// spaced quantiles are points.
func quantile(points []uint64, u float64) uint64 {
	if len(points) == 1 {
		return points[0]
	}
	x := u * float64(len(points)-1)
	i := int(x)
	if i >= len(points)-1 {
		return points[len(points)-1]
	}
	lo, hi := float64(points[i]), float64(points[i+1])
	return uint64(math.Round(lo + (x-float64(i))*(hi-lo)))
}
