package sim

import (
	"testing"

	"github.com/keeper-project/keeper/keeper/clmm"
	"github.com/keeper-project/keeper/keeper/sim/faults"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/programs"
)

// TestWrittenOutValues checks the values the package writes out, rather than
// computes at start-up, against their computation.
func TestWrittenOutValues(t *testing.T) {
	if want := (clmm.U128{}).Sub(clmm.U128{Hi: 1 << 4}); programs.GrowthStart != want {
		t.Errorf("growthStart %+v, want %+v", programs.GrowthStart, want)
	}
	if got, want := faults.UnknownProgramID.Get(), ids.DerivedKey("program", "unknown"); got != want {
		t.Errorf("unknownProgramID %s, want %s", got, want)
	}
}
