package action

import (
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/journal"
	"github.com/keeper-project/keeper/keeper/squads"
	"github.com/keeper-project/keeper/signer"
)

// flatMarket is a fee market whose recent blocks all charged price.
type flatMarket uint64

func (m flatMarket) RecentPrioritizationFees(context.Context, []solana.PublicKey) ([]chain.PrioritizationFee, error) {
	return []chain.PrioritizationFee{{Slot: 1, MicroLamports: uint64(m)}, {Slot: 2, MicroLamports: uint64(m)}}, nil
}

// TestExecutionBidRaisesTheLastUnderTheCaps: a new execution of a
// proposal bids the market's price raised over the price of the execution
// keeper journaled before (the one that expired), under its policy's cap
// and the global cap; its limit is the simulated units with the margin.
func TestExecutionBidRaisesTheLastUnderTheCaps(t *testing.T) {
	ms, wallet := solana.PublicKey{7}, solana.PublicKey{1}
	last, err := squads.ExecuteMessage(ms, 1, wallet, nil, &signer.Budget{Limit: 30_000, Price: 4_000}, solana.Hash{3})
	if err != nil {
		t.Fatal(err)
	}
	wire := append(append([]byte{1}, make([]byte, 64)...), last...) // one empty signature slot
	r := journal.Proposal{Multisig: ms.String(), Index: 1, Policy: "vault", ExecuteTx: base64.StdEncoding.EncodeToString(wire)}
	for _, c := range []struct {
		name      string
		market    uint64
		policyCap uint64
		globalCap uint64
		want      uint64
		wantAbove bool
	}{
		{name: "raised 25 % over the last", market: 3_000, globalCap: 1_000_000, want: 5_000},
		{name: "the market when higher", market: 6_000, globalCap: 1_000_000, want: 6_000},
		{name: "under the policy's cap", market: 3_000, policyCap: 4_500, globalCap: 1_000_000, want: 4_500},
		{name: "under the global cap", market: 3_000, globalCap: 4_200, want: 4_200},
		{name: "market above the policy's cap", market: 5_000, policyCap: 4_500, globalCap: 1_000_000, wantAbove: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := &Executor{cfg: Config{Priority: PriorityConfig{Fees: flatMarket(c.market), MaxUnitPrice: c.globalCap, UnitMargin: 10}}}
			if c.policyCap > 0 {
				e.proposalPricing.Store("vault", proposalPrice{maxUnitPrice: c.policyCap})
			}
			a := e.executeAttempt(slog.New(slog.DiscardHandler), r)
			msg, err := squads.ExecuteMessage(ms, 1, wallet, nil, nil, solana.Hash{4})
			if err != nil {
				t.Fatal(err)
			}
			b, err := a.ownBudget(t.Context(), msg, 20_000)
			if c.wantAbove {
				if !errors.Is(err, ErrAboveCap) || b != nil {
					t.Fatalf("budget %v, error %v: want ErrAboveCap", b, err)
				}
				return
			}
			if err != nil || b == nil {
				t.Fatalf("budget %v, error %v", b, err)
			}
			if b.Price != c.want || b.Limit != chain.UnitLimit(20_000+2*chain.BudgetInstructionUnits, 10) {
				t.Errorf("budget %s, want price %d and the limit from 20000 units", b, c.want)
			}
		})
	}
}
