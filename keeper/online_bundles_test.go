package keeper

import (
	"testing"

	"github.com/keeper-project/keeper/policies"
)

// TestMayBundleCountsAutoPolicies: an enabled policy that writes in mode
// auto may land bundles, so check --online asks the block engine for it; an
// alert, a disabled policy and an rpc policy do not.
func TestMayBundleCountsAutoPolicies(t *testing.T) {
	p := func(kind policies.Kind, mode policies.SubmitMode, enabled bool) *policies.Policy {
		return &policies.Policy{Kind: kind, Enabled: enabled, Submit: policies.Submit{Mode: mode}}
	}
	for _, tc := range []struct {
		ps   []*policies.Policy
		want bool
	}{
		{[]*policies.Policy{p(policies.KindRepay, policies.ModeAuto, true)}, true},
		{[]*policies.Policy{p(policies.KindRepay, policies.ModeAuto, false)}, false},
		{[]*policies.Policy{p(policies.KindAlert, policies.ModeAuto, true)}, false},
		{[]*policies.Policy{p(policies.KindRepay, policies.ModeRPC, true), p(policies.KindClaimFees, policies.ModeAuto, true)}, true},
		{[]*policies.Policy{p(policies.KindRepay, policies.ModeRPC, true)}, false},
	} {
		if got := mayBundle(tc.ps); got != tc.want {
			t.Errorf("mayBundle(%d policies, first %s %s enabled=%v) = %v, want %v", len(tc.ps), tc.ps[0].Kind, tc.ps[0].Submit.Mode, tc.ps[0].Enabled, got, tc.want)
		}
	}
}
