package sim

import (
	"slices"

	"github.com/keeper-project/keeper/keeper/market"
)

// loopInfo serves E12: the loops whose identifier (slug, or "{PRINCIPAL_MINT}-{COLLATERAL_MINT}") is
// among identifiers and that carry one of tags; an empty filter matches everything, and the two
// filters combine.
func (s *Sim) loopInfo(c *call) (any, error) {
	var q market.LoopsQuery
	if err := decodeBody(c.body, &q); err != nil {
		return nil, err
	}
	out := []market.Loop{}
	for _, l := range s.w.loops {
		pair := l.PrincipalMint + "-" + l.CollateralMint
		idOK := len(q.Identifiers) == 0 || slices.Contains(q.Identifiers, l.Identifier) || slices.Contains(q.Identifiers, pair)
		tagOK := len(q.Tags) == 0 || anyIn(q.Tags, l.Tags)
		if idOK && tagOK {
			out = append(out, l)
		}
	}
	return out, nil
}
