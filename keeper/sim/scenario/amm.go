package scenario

import "errors"

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
	// NoExactOut makes the pool's DEX one that cannot quote an exact output, as most of the DEXes
	// Jupiter routes through cannot (its docs name Orca Whirlpool, Raydium CLMM and Raydium CPMM as
	// the ones that can): the API finds no ExactOut route through it.
	NoExactOut bool `yaml:"no_exact_out"`
}

// AMMEvent changes an AMM pool while the simulator runs (an event's amm, or POST /_sim/amm): a moved
// price, a thin pool or a bad quote. Unset members keep their value: BaseReserve (whole base tokens)
// and Price (quote per base) rewrite the pool's reserves from what they are now; QuoteSkewBps is the
// pool's new quote_skew_bps.
type AMMEvent struct {
	Name         string  `yaml:"name" json:"name"`
	BaseReserve  float64 `yaml:"base_reserve" json:"base_reserve,omitempty"`
	Price        float64 `yaml:"price" json:"price,omitempty"`
	QuoteSkewBps *int    `yaml:"quote_skew_bps" json:"quote_skew_bps,omitempty"`
}

// The hostile modes of an AMM's swap instructions.
const (
	AMMHostileStrangerOutput = "stranger_output"
	AMMHostileHiddenProgram  = "hidden_program"
)

// Check reports what is wrong with ev's values (its name is the simulator's to resolve).
func (ev AMMEvent) Check() error {
	switch {
	case ev.BaseReserve < 0 || ev.Price < 0:
		return errors.New("base_reserve and price must not be negative")
	case ev.QuoteSkewBps != nil && *ev.QuoteSkewBps <= -10000:
		return errors.New("quote_skew_bps must be above -10000")
	case ev.BaseReserve == 0 && ev.Price == 0 && ev.QuoteSkewBps == nil:
		return errors.New("give base_reserve, price or quote_skew_bps")
	}
	return nil
}
