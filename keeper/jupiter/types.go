package jupiter

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/keeper-project/keeper/keeper/market"
)

// SwapMode says which side of a quote is fixed.
type SwapMode string

// The swap modes the API knows.
const (
	ExactIn  SwapMode = "ExactIn"
	ExactOut SwapMode = "ExactOut"
)

// QuoteRequest is the query of GET /swap/v1/quote.
type QuoteRequest struct {
	InputMint, OutputMint string
	// Amount is the input amount (ExactIn) or the output amount (ExactOut), in smallest units.
	Amount      uint64
	SlippageBps uint16
	SwapMode    SwapMode // ExactIn when empty
	// OnlyDirectRoutes restricts the route to a single pool.
	OnlyDirectRoutes bool
	// Dexes, when set, restricts the route to these DEX labels.
	Dexes []string
}

// Validate checks the request before it is sent.
func (q QuoteRequest) Validate() error {
	switch {
	case q.InputMint == "" || q.OutputMint == "":
		return fmt.Errorf("quote: inputMint and outputMint are required")
	case q.InputMint == q.OutputMint:
		return fmt.Errorf("quote: inputMint and outputMint are the same mint %s", q.InputMint)
	case q.Amount == 0:
		return fmt.Errorf("quote: amount must be positive")
	case q.SlippageBps > 10000:
		return fmt.Errorf("quote: slippageBps %d is above 10000", q.SlippageBps)
	case q.SwapMode != "" && q.SwapMode != ExactIn && q.SwapMode != ExactOut:
		return fmt.Errorf("quote: swapMode %q is neither ExactIn nor ExactOut", q.SwapMode)
	}
	return nil
}

// Quote is the answer of GET /swap/v1/quote. Amounts arrive as decimal strings; Raw keeps the
// answer's exact bytes, which swap-instructions takes back as quoteResponse.
type Quote struct {
	InputMint            string        `json:"inputMint"`
	OutputMint           string        `json:"outputMint"`
	InAmount             market.Amount `json:"inAmount"`
	OutAmount            market.Amount `json:"outAmount"`
	OtherAmountThreshold market.Amount `json:"otherAmountThreshold"`
	SwapMode             SwapMode      `json:"swapMode"`
	SlippageBps          uint16        `json:"slippageBps"`
	PriceImpactPct       Decimal       `json:"priceImpactPct"`
	RoutePlan            []RouteStep   `json:"routePlan"`
	ContextSlot          uint64        `json:"contextSlot"`

	Raw json.RawMessage `json:"-"`
}

// RouteStep is one hop of a quote's route.
type RouteStep struct {
	SwapInfo SwapInfo `json:"swapInfo"`
	Percent  uint8    `json:"percent"`
}

// SwapInfo is the pool a hop trades through.
type SwapInfo struct {
	AmmKey     string        `json:"ammKey"`
	Label      string        `json:"label"`
	InputMint  string        `json:"inputMint"`
	OutputMint string        `json:"outputMint"`
	InAmount   market.Amount `json:"inAmount"`
	OutAmount  market.Amount `json:"outAmount"`
	FeeAmount  market.Amount `json:"feeAmount"`
	FeeMint    string        `json:"feeMint"`
}

// check refuses a quote that does not answer the request.
func (q *Quote) check(req QuoteRequest) error {
	mode := req.SwapMode
	if mode == "" {
		mode = ExactIn
	}
	switch {
	case q.InputMint != req.InputMint || q.OutputMint != req.OutputMint:
		return fmt.Errorf("quote is for %s → %s, not the %s → %s asked", q.InputMint, q.OutputMint, req.InputMint, req.OutputMint)
	case q.SwapMode != "" && q.SwapMode != mode:
		return fmt.Errorf("quote is %s, not the %s asked", q.SwapMode, mode)
	case q.InAmount == 0 || q.OutAmount == 0:
		return fmt.Errorf("quote has a zero amount (in %d, out %d)", q.InAmount, q.OutAmount)
	case mode == ExactIn && q.InAmount.Uint64() != req.Amount:
		return fmt.Errorf("ExactIn quote spends %d, not the %d asked", q.InAmount, req.Amount)
	case mode == ExactOut && q.OutAmount.Uint64() != req.Amount:
		return fmt.Errorf("ExactOut quote yields %d, not the %d asked", q.OutAmount, req.Amount)
	}
	return nil
}

// Decimal is a number the API sends as a decimal string (priceImpactPct) or a JSON number.
type Decimal float64

// UnmarshalJSON accepts a JSON number or a string holding one.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if u, err := strconv.Unquote(s); err == nil {
		s = u
	}
	if s == "" {
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("decimal: %q is not a number", market.Echo(s))
	}
	*d = Decimal(f)
	return nil
}

// SwapRequest is the body of POST /swap/v1/swap-instructions.
type SwapRequest struct {
	// Quote is the quote to execute, sent back as the API returned it.
	Quote *Quote
	// UserPublicKey is the wallet that signs the swap and owns its token accounts.
	UserPublicKey string
	// WrapAndUnwrapSol lets the swap wrap and unwrap native SOL.
	WrapAndUnwrapSol bool
	// DestinationTokenAccount, when set, receives the output instead of the user's associated account.
	DestinationTokenAccount string
}

// swapBody is SwapRequest on the wire.
type swapBody struct {
	QuoteResponse           json.RawMessage `json:"quoteResponse"`
	UserPublicKey           string          `json:"userPublicKey"`
	WrapAndUnwrapSol        bool            `json:"wrapAndUnwrapSol"`
	DestinationTokenAccount string          `json:"destinationTokenAccount,omitempty"`
}

// Validate checks the request before it is sent.
func (s SwapRequest) Validate() error {
	switch {
	case s.Quote == nil || len(s.Quote.Raw) == 0:
		return fmt.Errorf("swap-instructions: a quote from Quote is required")
	case s.UserPublicKey == "":
		return fmt.Errorf("swap-instructions: userPublicKey is required")
	}
	return nil
}

// SwapInstructions is the answer of POST /swap/v1/swap-instructions. Each instruction has the
// shape the market's E2 takes for cpiIxs and setupIxs (programId, accounts, data in base64).
type SwapInstructions struct {
	ComputeBudgetInstructions   []market.Instruction `json:"computeBudgetInstructions"`
	SetupInstructions           []market.Instruction `json:"setupInstructions"`
	SwapInstruction             market.Instruction   `json:"swapInstruction"`
	CleanupInstruction          *market.Instruction  `json:"cleanupInstruction"`
	AddressLookupTableAddresses []string             `json:"addressLookupTableAddresses"`
}

// check refuses an answer without a swap instruction.
func (s *SwapInstructions) check() error {
	if s.SwapInstruction.ProgramID == "" {
		return fmt.Errorf("answer has no swapInstruction")
	}
	return nil
}

// Swap returns the swap and cleanup instructions: what runs after setup.
func (s *SwapInstructions) Swap() []market.Instruction {
	out := []market.Instruction{s.SwapInstruction}
	if s.CleanupInstruction != nil {
		out = append(out, *s.CleanupInstruction)
	}
	return out
}
