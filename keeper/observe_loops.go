package keeper

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/policies"
)

// observeLoops reads the loop (E12) of every pair of an observed vault's
// principal mint and one of its strategy's collaterals. Each pair is asked
// for by the identifier "{PRINCIPAL_MINT}-{COLLATERAL_MINT}" the spec
// names, one request per pair, so a record is attributed to its pair
// without trusting the record's own mint fields (an assumption). A pair
// without a loop answers an empty list; more than one record for a pair is
// a bad answer.
func (o *observer) observeLoops(ctx context.Context, obs *policies.Observation) error {
	for _, pair := range loopPairs(obs.Vaults) {
		id := pair[0] + "-" + pair[1]
		loops, err := cached(ctx, o.reads, "loop:"+id, func(ctx context.Context) ([]market.Loop, error) {
			return o.market.Loops(ctx, market.LoopsQuery{Identifiers: []string{id}})
		})
		if err != nil {
			return err
		}
		switch len(loops) {
		case 0:
		case 1:
			obs.Loops = append(obs.Loops, policies.LoopObservation{PrincipalMint: pair[0], CollateralMint: pair[1], Loop: loops[0]})
		default:
			return fmt.Errorf("market: %s: %d loop records for the one identifier %s", market.EndpointLoopInfo, len(loops), id)
		}
	}
	return nil
}

// loopPairs returns each (principal mint, collateral) pair of the vaults'
// strategies once, in order. A strategy names pool collateral by its pool
// id, which no loop identifier holds: such a pair answers no loop.
func loopPairs(vaults []market.Vault) [][2]string {
	var out [][2]string
	for _, v := range vaults {
		for _, t := range v.VaultStrategy.CollateralTerms {
			out = append(out, [2]string{v.PrincipalMint, t.AssetIdentifier})
		}
	}
	slices.SortFunc(out, func(a, b [2]string) int { return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1])) })
	return slices.Compact(out)
}
