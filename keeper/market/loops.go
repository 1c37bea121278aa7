package market

import json "github.com/go-json-experiment/json/v1"

// LoopsQuery is the body of E12 (POST markets/loop/info). Identifiers are slugs or
// "{PRINCIPAL_MINT}-{COLLATERAL_MINT}" strings; the two filters can be used separately.
type LoopsQuery struct {
	Identifiers []string `json:"identifiers,omitempty"`
	Tags        []string `json:"tags,omitempty"`
}

// Loop is one loop record. CollateralDeposited (total assets deposited, decimal-scaled), WAvgApy (the
// size-weighted APY across active positions, a fraction) and MaxApy are the fields the spec names;
// Identifier, PrincipalMint, CollateralMint and Tags are assumed (docs/assumptions.md). Display WAvgApy:
// MaxApy can be empty or unrepresentative when borrow liquidity is exhausted. Raw holds the record's
// JSON as received.
type Loop struct {
	Identifier          string          `json:"identifier"`
	PrincipalMint       string          `json:"principalMint"`
	CollateralMint      string          `json:"collateralMint"`
	Tags                []string        `json:"tags,omitempty"`
	CollateralDeposited Number          `json:"collateralDeposited"`
	WAvgApy             Number          `json:"wAvgApy"`
	MaxApy              *Number         `json:"maxApy,omitempty"`
	Raw                 json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes a loop record and keeps its raw JSON in Raw.
func (l *Loop) UnmarshalJSON(b []byte) error {
	type plain Loop
	return decodeKeepingRaw(b, (*plain)(l), func(p *plain) *json.RawMessage { return &p.Raw })
}
