package keeper

import (
	"fmt"
	"strings"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/config"
	"github.com/keeper-project/keeper/policies"
)

// ProgramsError names the policies that need a dex program the config does
// not set.
type ProgramsError struct{ Problems []string }

func (e *ProgramsError) Error() string { return strings.Join(e.Problems, "\n") }

// CheckPrograms checks that every enabled policy that acts on or reads CLMM
// positions has the program ids of its dexes in the config: rebalance
// (dex-a), claim-fees (dex-b), and alerts over positions (both).
func CheckPrograms(c *config.Config, ps []*policies.Policy) error {
	var bad ProgramsError
	for _, p := range ps {
		if !p.Enabled {
			continue
		}
		for _, dex := range dexesOf(p) {
			key, id := "chain.dex_a_program", c.Chain.DexAProgram
			if dex == clmm.DexB {
				key, id = "chain.dex_b_program", c.Chain.DexBProgram
			}
			if id == "" {
				bad.Problems = append(bad.Problems, fmt.Sprintf("%s:%d:%d: policy %q reads %s positions: set %s in the config",
					p.File, p.Line, p.Column, p.Name, dex, key))
			}
		}
	}
	if len(bad.Problems) > 0 {
		return &bad
	}
	return nil
}

// dexesOf lists the dexes whose positions p acts on or reads.
func dexesOf(p *policies.Policy) []string {
	switch {
	case p.Kind == policies.KindRebalance:
		return []string{clmm.DexA}
	case p.Kind == policies.KindClaimFees:
		return []string{clmm.DexB}
	case p.Target() == policies.TargetPositions:
		return []string{clmm.DexA, clmm.DexB}
	}
	return nil
}
