package scenario

// AMMSpec is a constant-product pool of the simulator's swap program, which its Jupiter API quotes
// and routes through. Depth (BaseReserve) sets the price impact: selling q base tokens into a pool of
// B yields about Price·q·B/(B+q).
type AMMSpec struct {
	// Name names the pool (kind "amm").
	Name string `yaml:"name"`
	// Base and Quote are the symbols of the pool's mints (e.g. SOL and USDC).
	Base  string `yaml:"base"`
	Quote string `yaml:"quote"`
	// BaseReserve is the pool's base reserve in whole tokens.
	BaseReserve float64 `yaml:"base_reserve"`
	// Price is the pool's price in quote tokens per base token; 0 takes the oracle's prices.
	Price float64 `yaml:"price"`
	// FeeBps is the pool's fee, taken from the input.
	FeeBps uint16 `yaml:"fee_bps"`
	// QuoteSkewBps makes the API's quotes promise this much more output than the pool pays
	// (negative: less): a bad quote.
	QuoteSkewBps int `yaml:"quote_skew_bps"`
	// Hostile makes the API's swap instructions hostile: "stranger_output" pays the output to a
	// stranger, "hidden_program" adds an instruction of an unknown program to the setup.
	Hostile string `yaml:"hostile"`
}

// The hostile modes of an AMM's swap instructions.
const (
	AMMHostileStrangerOutput = "stranger_output"
	AMMHostileHiddenProgram  = "hidden_program"
)
