package action

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/keeper-project/keeper/keeper/jupiter"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/policies"
)

// quoter answers quotes as a constant-price aggregator would: an ExactOut quote needs in per out
// collateral for the output, its threshold raised by the slippage; exactOut, when set, is the
// error of every ExactOut quote. It records the requests.
type quoter struct {
	inPerOut float64
	exactOut error
	asked    []jupiter.QuoteRequest
}

func (q *quoter) Quote(_ context.Context, req jupiter.QuoteRequest) (*jupiter.Quote, error) {
	q.asked = append(q.asked, req)
	if req.SwapMode == jupiter.ExactOut {
		if q.exactOut != nil {
			return nil, q.exactOut
		}
		in := uint64(float64(req.Amount) * q.inPerOut)
		return &jupiter.Quote{SwapMode: jupiter.ExactOut, InAmount: market.Amount(in), OutAmount: market.Amount(req.Amount),
			OtherAmountThreshold: market.Amount(in * (10000 + uint64(req.SlippageBps)) / 10000)}, nil
	}
	out := uint64(float64(req.Amount) / q.inPerOut)
	return &jupiter.Quote{SwapMode: jupiter.ExactIn, InAmount: market.Amount(req.Amount), OutAmount: market.Amount(out),
		OtherAmountThreshold: market.Amount(out * (10000 - uint64(req.SlippageBps)) / 10000)}, nil
}

func (q *quoter) SwapInstructions(context.Context, jupiter.SwapRequest) (*jupiter.SwapInstructions, error) {
	return nil, errors.New("not asked")
}

// TestQuoteSale: ExactOut for the debt at the configured slippage; narrowed when the most it may
// spend would pass the bound; ExactIn of the bound only when the aggregator cannot route ExactOut
// (a 4xx), never on a server error.
func TestQuoteSale(t *testing.T) {
	cr := &policies.CollateralRepay{CollateralMint: "SOL", PrincipalMint: "USDC", Debt: 1000, MaxCollateral: 1020, SlippageBps: 196}
	tests := []struct {
		name     string
		q        quoter
		wantMode jupiter.SwapMode
		wantSlip []uint16 // of each request, in order
		wantErr  bool
	}{
		{"within the bound", quoter{inPerOut: 1.003}, jupiter.ExactOut, []uint16{50}, false},
		{"narrowed to the bound", quoter{inPerOut: 1.018}, jupiter.ExactOut, []uint16{50, 19}, false},
		{"beyond the bound at any slippage: the guard refuses it", quoter{inPerOut: 1.03}, jupiter.ExactOut, []uint16{50}, false},
		{"no ExactOut route", quoter{inPerOut: 1.003, exactOut: &jupiter.Error{Call: "quote", Status: http.StatusBadRequest}}, jupiter.ExactIn, []uint16{50, 196, 157}, false},
		{"aggregator down", quoter{inPerOut: 1.003, exactOut: &jupiter.Error{Call: "quote", Status: http.StatusBadGateway}}, "", []uint16{50}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.q
			got, unroutable, err := QuoteSale(t.Context(), CollateralConfig{Swapper: &q}, cr, cr.Debt, cr.MaxCollateral)
			if (err != nil) != tt.wantErr || (unroutable != nil) != (tt.wantMode == jupiter.ExactIn) {
				t.Fatalf("err %v, unroutable %v", err, unroutable)
			}
			if err == nil && (got.SwapMode != tt.wantMode || (got.SwapMode == jupiter.ExactOut && got.InAmount.Uint64() < cr.MaxCollateral && got.OtherAmountThreshold.Uint64() > cr.MaxCollateral)) {
				t.Errorf("quote %+v, want %s within the bound", got, tt.wantMode)
			}
			var slips []uint16
			for _, r := range q.asked {
				slips = append(slips, r.SlippageBps)
			}
			if !slices.Equal(slips, tt.wantSlip) {
				t.Errorf("slippages asked %v, want %v", slips, tt.wantSlip)
			}
		})
	}
}
