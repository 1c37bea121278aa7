package feemarket

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// Costs of Agave's cost model (cost-model/src/block_cost_limits.rs,
// cost_model.rs), in compute units.
const (
	signatureCost      = 720 // per transaction signature
	writeLockCost      = 300 // per writable account
	dataBytesPerUnit   = 4   // instruction data bytes per unit (140 / 30)
	loadedPageCost     = 8   // per 32 KiB of loaded-accounts data size limit
	loadedPageBytes    = 32 * 1024
	defaultLoadedBytes = 64 * 1024 * 1024 // MAX_LOADED_ACCOUNTS_DATA_SIZE_BYTES
	burnPercent        = 50               // of the base fee (the priority fee is all the leader's)
	priorityMultiplier = 1_000_000        // the scheduler's reward multiplier
)

// Cost is what a transaction counts against the block limits and what it
// pays the leader, as Agave's scheduler sees them before execution.
type Cost struct {
	Fixed    uint64 // signatures, write locks, instruction data, loaded accounts
	Exec     uint64 // the requested compute-unit limit
	Price    uint64 // compute-unit price, micro-lamports
	Priority uint64 // what the leader keeps × 1e6 / (cost + 1)
	Writable []solana.PublicKey
}

// Total returns the cost against the block limits.
func (c Cost) Total() uint64 { return c.Fixed + c.Exec }

// Executed returns the cost once the transaction has run and consumed
// units: Agave's cost tracker replaces the requested limit with them.
func (c Cost) Executed(units uint64) uint64 { return c.Fixed + min(units, c.Exec) }

// CostOf computes a resolved transaction's cost and priority; false when
// its compute budget instructions are invalid.
func CostOf(t *svm.Txn) (Cost, bool) {
	b, terr := svm.BudgetOf(t)
	if terr != nil {
		return Cost{}, false
	}
	var writable []solana.PublicKey
	for i, k := range t.Keys {
		if t.Writable[i] {
			writable = append(writable, k)
		}
	}
	data := 0
	for _, ix := range t.Msg.Instructions {
		data += len(ix.Data)
	}
	fixed := uint64(len(t.Sigs))*signatureCost + uint64(len(writable))*writeLockCost +
		uint64(data)/dataBytesPerUnit + loadedCost(loadedLimitOf(t))
	base := uint64(len(t.Sigs)) * svm.LamportsPerSignature
	c := Cost{Fixed: fixed, Exec: b.Limit, Price: b.Price, Writable: writable}
	c.Priority = priorityOf(b.Fee(len(t.Sigs))-base, base, c.Total())
	return c, true
}

// loadCost is the cost of one competing transaction of a load on account:
// one signature, two write locks (its fee payer and the load's account), a
// compute-unit limit and price instruction, and the default loaded-accounts
// limit. Only the load's account is tracked: each fee payer is its own.
func loadCost(units, price uint64, account []solana.PublicKey) Cost {
	fixed := signatureCost + 2*writeLockCost + (5+9)/dataBytesPerUnit + loadedCost(defaultLoadedBytes)
	c := Cost{Fixed: uint64(fixed), Exec: units, Price: price, Writable: account}
	fee := svm.ComputeBudget{Limit: units, Price: price}.Fee(1) - svm.LamportsPerSignature
	c.Priority = priorityOf(fee, svm.LamportsPerSignature, c.Total())
	return c
}

// loadedCost is the cost of a loaded-accounts data size limit.
func loadedCost(limit uint64) uint64 {
	return (limit + loadedPageBytes - 1) / loadedPageBytes * loadedPageCost
}

// loadedLimitOf returns the transaction's loaded-accounts data size limit:
// its SetLoadedAccountsDataSizeLimit, or the default.
func loadedLimitOf(t *svm.Txn) uint64 {
	for _, ix := range t.Msg.Instructions {
		d := []byte(ix.Data)
		if t.Msg.AccountKeys[ix.ProgramIDIndex] == solana.ComputeBudget && len(d) == 5 && d[0] == 4 {
			return min(uint64(binary.LittleEndian.Uint32(d[1:])), defaultLoadedBytes)
		}
	}
	return defaultLoadedBytes
}

// priorityOf is the scheduler's priority of a transaction that pays
// priorityFee and base lamports and costs cost units: what the leader keeps
// (the priority fee and the unburnt half of the base fee) × 1e6 / (cost + 1),
// saturating (Agave core/src/transaction_priority.rs).
func priorityOf(priorityFee, base, cost uint64) uint64 {
	reward, carry := bits.Add64(priorityFee, base-base*burnPercent/100, 0)
	if carry != 0 {
		return math.MaxUint64
	}
	hi, lo := bits.Mul64(reward, priorityMultiplier)
	if hi >= cost+1 {
		return math.MaxUint64
	}
	q, _ := bits.Div64(hi, lo, cost+1)
	return q
}

// Tracker is a block's cost tracker: what its transactions cost in all and
// per writable account (Agave cost-model/src/cost_tracker.rs).
type Tracker struct {
	limits   BlockLimits
	block    uint64
	accounts map[solana.PublicKey]uint64
}

// NewTracker returns the tracker of an empty block.
func NewTracker(limits BlockLimits) *Tracker {
	return &Tracker{limits: limits, accounts: map[solana.PublicKey]uint64{}}
}

// Fits reports whether a transaction costing cost that write-locks
// writable fits the block.
func (b *Tracker) Fits(cost uint64, writable []solana.PublicKey) bool {
	if b.block+cost > b.limits.Block || cost > b.limits.WritableAccount {
		return false
	}
	for _, k := range writable {
		if b.accounts[k]+cost > b.limits.WritableAccount {
			return false
		}
	}
	return true
}

// Add counts a transaction's cost.
func (b *Tracker) Add(cost uint64, writable []solana.PublicKey) {
	b.block += cost
	for _, k := range writable {
		b.accounts[k] += cost
	}
}

// DrawLoad returns the load's transactions of slot: for each of its
// accounts, enough transactions to ask Demand times the account limit, each
// bidding a price drawn from the load's prices.
func (s *Settings) DrawLoad(slot uint64, limits BlockLimits) []Cost {
	l := s.LoadAt(slot)
	if l == nil {
		return nil
	}
	r := slotRand(s.seed, "load", slot)
	per := int(math.Ceil(l.Demand * float64(limits.WritableAccount) / float64(loadCost(l.Units, 0, nil).Total())))
	out := make([]Cost, 0, per*len(l.Accounts))
	for _, a := range l.Accounts {
		w := []solana.PublicKey{a}
		for range per {
			out = append(out, loadCost(l.Units, quantile(l.Prices, r.Float64()), w))
		}
	}
	return out
}
