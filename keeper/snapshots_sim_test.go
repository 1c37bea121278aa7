package keeper

import (
	"bytes"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/keeper/sim/faults"
)

// TestMixedSnapshotsOnSim runs the USDC auto-repay over 101 loans of the
// wallet (two E3 pages of 100), one of them under its trigger, while the
// simulator makes page 1 carry another snapshotTs. Skewed once, keeper
// reads the loans again (two walks) and repays the loan. Skewed always, it
// reads three walks, acts on nothing, and the run is an error naming the
// mixed snapshots.
func TestMixedSnapshotsOnSim(t *testing.T) {
	for _, tc := range []struct {
		skew      faults.SnapshotSkew
		walks     int64
		repays    int
		runsError bool
	}{
		{faults.SnapshotSkewOnce, 2, 1, false},
		{faults.SnapshotSkewAlways, api.DefaultSnapshotWalks, 0, true},
	} {
		t.Run(tc.skew.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newSimWorld(t, simOptions{scenario: benchScenario(t, 100, 1), configYAML: pageSizeConfig(100),
					faults: faults.Faults{Market: faults.Market{SnapshotSkew: tc.skew}}})
				var walks atomic.Int64
				w.net.before = func(c netCall, body []byte) {
					// The policy's walks; a landed repay's check reads its one loan by address.
					if c.Host == simMarketHost && bytes.Contains(body, []byte(`"page":0,`)) && !bytes.Contains(body, []byte(`"loanAddresses"`)) {
						walks.Add(1)
					}
				}
				w.useUSDCRepay(t)
				k := w.open(t, "")
				err := k.RunOnce(t.Context())
				if got := errors.Is(err, api.ErrMixedSnapshots); got != tc.runsError {
					t.Errorf("RunOnce: %v; want a mixed-snapshots error: %v", err, tc.runsError)
				}
				if n := walks.Load(); n != tc.walks {
					t.Errorf("%d walks of the loans, want %d", n, tc.walks)
				}
				if n := len(k.actionsOf(t, "auto-repay")); n != tc.repays {
					t.Errorf("%d repays journaled, want %d", n, tc.repays)
				}
				if n := len(w.landed.paidBy(w.wallet())); n != tc.repays {
					t.Errorf("%d transactions of the wallet landed, want %d", n, tc.repays)
				}
				wantErrors := 0.0
				if tc.runsError {
					wantErrors = 1
				}
				if n := k.runs("auto-repay", "error"); n != wantErrors {
					t.Errorf("%v runs counted as errors, want %v", n, wantErrors)
				}
			})
		})
	}
}
