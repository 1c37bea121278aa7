package config

import (
	"time"

	"github.com/keeper-project/keeper/keeper/market"
)

// Swap configures the DEX aggregator a repay from collateral sells through:
// Jupiter's swap API (quote, then swap-instructions). Without a base URL,
// repay policies with source collateral or auto cannot build.
type Swap struct {
	// BaseURL is the API's root, e.g. https://api.jup.ag (keeper sim: the
	// market URL followed by /jupiter).
	BaseURL URL           `yaml:"base_url"`
	Timeout time.Duration `yaml:"timeout"`
	// APIKey is sent as x-api-key (value, or value_file); a secret.
	APIKey Auth `yaml:"api_key"`
	// Programs are the aggregator's program ids: the guard allows them in
	// repay-collateral transactions only, and every instruction of the
	// aggregator's answer must call one of them (or System, Token,
	// Associated Token, ComputeBudget).
	Programs []string `yaml:"programs"`
	// Layout says how E2's steps carry the sale (docs/assumptions.md).
	Layout market.CollateralRepayLayout `yaml:"layout"`
	// ExactOutSlippageBps is the slippage keeper asks of an ExactOut quote
	// (on its input: the price may move this much between the quote and the
	// landing); the oracle bound caps it. Default 50, Jupiter's own default.
	ExactOutSlippageBps uint16 `yaml:"exact_out_slippage_bps"`
}

// defaultSwapTimeout bounds one aggregator call when swap.timeout is unset.
const defaultSwapTimeout = 10 * time.Second

// Bounds of swap.exact_out_slippage_bps: its default (Jupiter's default
// slippage) and its largest value.
const (
	defaultExactOutSlippageBps = 50
	maxExactOutSlippageBps     = 2000
)

// validate checks the swap section.
func (s *Swap) validate(v *validator) {
	if s.Timeout == 0 {
		s.Timeout = defaultSwapTimeout
	}
	if s.APIKey.Header == "" {
		s.APIKey.Header = "x-api-key"
	}
	if s.ExactOutSlippageBps == 0 {
		s.ExactOutSlippageBps = defaultExactOutSlippageBps
	}
	if s.ExactOutSlippageBps > maxExactOutSlippageBps {
		v.fail([]any{"swap", "exact_out_slippage_bps"}, "swap.exact_out_slippage_bps must be at most %d, got %d", maxExactOutSlippageBps, s.ExactOutSlippageBps)
	}
	s.APIKey.validate(v, []any{"swap", "api_key"}, "swap.api_key")
	v.url([]any{"swap", "base_url"}, "swap.base_url", string(s.BaseURL), false)
	v.positive([]any{"swap", "timeout"}, "swap.timeout", s.Timeout > 0)
	if s.BaseURL != "" && len(s.Programs) == 0 {
		v.fail([]any{"swap", "programs"}, "swap.programs: name the aggregator's program ids when swap.base_url is set")
	}
	for i, p := range s.Programs {
		v.pubkey([]any{"swap", "programs", i}, "swap.programs", p, true)
	}
}
