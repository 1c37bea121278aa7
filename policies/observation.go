package policies

import (
	"fmt"
	"sync"
	"time"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/market"
)

// Observation is what the runtime read for one policy run, in the market's
// and clmm's own types. Fill it, then hand it to Evaluate and do not change
// it afterwards: Evaluate derives facts from it once per evaluation time and
// keeps them in it (safely for concurrent use), so evaluating several
// policies over one Observation derives them once.
type Observation struct {
	// Wallet is the signer's public key (base58): the default borrower, the
	// withdrawal requester and the default vault authority.
	Wallet string
	// SnapshotTime is when the data was read: the oldest of the reads'
	// times (the loans' snapshotTs, the chain reads' time). Zero counts as
	// stale.
	SnapshotTime time.Time
	// Loans are loans-info items (E3).
	Loans []market.LoanItem
	// Positions are CLMM collateral positions read from chain.
	Positions []PositionObservation
	// Withdrawals are earn withdrawal queues.
	Withdrawals []market.WithdrawalQueue
	// EarnPositions are the wallet's positions in the earn vaults whose
	// queues were read. A queued request is claimed only when the position
	// of its vault (by Address) lists its id among OpenWithdrawalRequests'
	// onChainRequestAddr, the id the spec names for E10: the queue's shape
	// is assumed, the position's request address is not.
	EarnPositions []market.EarnPosition
	// Vaults are lending vault records (E11).
	Vaults []market.Vault
	// Quotes are best quotes (E6), with what they were asked for.
	Quotes []QuoteObservation
	// Loops are loop records (E12), with the pair each was asked for.
	Loops []LoopObservation
	// Tokens holds what is known of mints: symbols and decimals for
	// messages, USD prices for debt (instead of the loan's own ratio) and
	// for vault rewards.
	Tokens map[string]Token
	// Unpriced says, per mint the runtime was asked to price and could not
	// (no source, a stale or uncertain Pyth price, a failed read), why. A
	// fact that needs such a price is unknown, never zero.
	Unpriced map[string]string
	// ChainTime is the chain's clock (the Clock sysvar) when the vaults were
	// priced; vault facts (which reward schedules are active) are derived at
	// it when set, as the programs compare schedules with it.
	ChainTime time.Time
	// Dropped counts the targets a Sieve evaluated and left out of the
	// Observation because their evaluation came to nothing; Evaluate counts
	// them in Result.Evaluated.
	Dropped int

	sievedAt time.Time // set by Sieve.Observation
	mu       sync.Mutex
	derived  *derived
}

// PositionObservation is one CLMM collateral position of a loan.
type PositionObservation struct {
	// Loan is the loan holding the position as collateral.
	Loan string
	// CollateralIndex is the position's collateral slot on the loan.
	CollateralIndex int
	// State is what clmm.Reader read; a State with Err set is reported as a
	// skipped target.
	State clmm.PositionState
}

// QuoteObservation is one best quote with the principal mint and duration
// it was asked for (the quote record carries neither).
type QuoteObservation struct {
	PrincipalMint string
	Duration      market.StrategyDuration
	Quote         market.Quote
}

// Token is what is known of one mint.
type Token struct {
	// Symbol is shown in messages, e.g. USDC.
	Symbol string `json:"symbol"`
	// Decimals scales smallest units to whole tokens.
	Decimals uint8 `json:"decimals"`
	// PriceUSD is the USD price of one whole token; 0 when unknown.
	PriceUSD float64 `json:"price_usd"`
}

// SievedAt is the time a Sieve evaluated the pages of o at, when o is what
// a sieve kept (zero otherwise): evaluate o at that time, so that the
// targets it dropped are dropped by the evaluation too.
func (o *Observation) SievedAt() time.Time { return o.sievedAt }

// facts returns the facts derived at now's whole second, deriving them on
// first use. The chain and the API count time in whole seconds, so the
// policies of one tick that share an Observation share its facts.
func (o *Observation) facts(now time.Time) *derived {
	now = now.Truncate(time.Second)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.derived == nil || !o.derived.now.Equal(now) {
		o.derived = derive(o, now)
	}
	return o.derived
}

// History is what the journal knows of one policy's past actions, as a
// plain snapshot the runtime fills before each evaluation, so Evaluate
// needs no journal.
type History struct {
	// Targets holds, per target key, the policy's last action on it.
	Targets map[string]TargetHistory
	// SpentToday is the token outflow of the policy's actions this UTC day,
	// per mint, in smallest units.
	SpentToday map[string]uint64
	// FeesToday is the lamports the policy spent on fees and tips this UTC day.
	FeesToday uint64
	// ActionsThisRun counts actions already planned in this run.
	ActionsThisRun int
}

// TargetHistory is the policy's last action on one target.
type TargetHistory struct {
	// LastAction is when the last action on the target was planned; zero
	// when none.
	LastAction time.Time
	// InFlight reports an action on the target that is not settled yet.
	InFlight bool
}

// State is what Evaluate remembers of one policy across runs: since when
// each target's condition has held, for `for`. The runtime keeps one State
// per policy (the zero value is ready) and passes it to every evaluation;
// Evaluate updates it in place. A stale snapshot leaves it untouched.
type State struct {
	// PendingSince maps a target key to the first evaluation time of the
	// current unbroken run of evaluations in which its condition held.
	PendingSince map[string]time.Time
	// Open are the targets of an alert policy whose incident is open, as
	// the runtime keeps them (Evaluate only reads them): an evaluation
	// reports each one it finds no longer firing in Result.Cleared, with
	// what its facts are now, and a Sieve keeps such targets for it.
	Open map[string]bool
}

// Holdings are an Observation's loans, CLMM positions and withdrawal
// requests with the facts policies decide from, for people (`keeper
// wallet`). A loan or position whose facts could not be derived is listed
// in Problems, by address, with why.
type Holdings struct {
	Loans       []LoanFacts       `json:"loans"`
	Positions   []PositionFacts   `json:"positions"`
	Withdrawals []WithdrawalFacts `json:"withdrawals"`
	Problems    map[string]string `json:"problems,omitempty"`
}

// Holdings derives o's facts at now, as Evaluate would.
func (o *Observation) Holdings(now time.Time) Holdings {
	d := o.facts(now)
	h := Holdings{Loans: []LoanFacts{}, Positions: []PositionFacts{}, Withdrawals: []WithdrawalFacts{}}
	problem := func(addr string, err error) {
		if h.Problems == nil {
			h.Problems = map[string]string{}
		}
		h.Problems[addr] = err.Error()
	}
	for _, l := range d.loans {
		if l.err != nil {
			problem(l.item.Loan.Address, l.err)
			continue
		}
		h.Loans = append(h.Loans, l.facts)
	}
	for _, p := range d.positions {
		if p.err != nil {
			problem(p.facts.PositionMint, p.err)
			continue
		}
		h.Positions = append(h.Positions, p.facts)
		for name, why := range p.unknown {
			problem(p.facts.PositionMint+" "+name, fmt.Errorf("unknown: %s", why))
		}
	}
	for _, w := range d.withdrawals {
		h.Withdrawals = append(h.Withdrawals, w.facts)
	}
	return h
}
