package policies

import (
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/squads"
)

// TestSquadsAuthoritySelectsTheVault: a policy whose authority is a Squads
// multisig acts on the strategies its vault holds, not on the wallet's, and
// its actions carry the authority.
func TestSquadsAuthoritySelectsTheVault(t *testing.T) {
	ms := solana.MustPublicKeyFromBase58(key("multisig"))
	vaultPDA, _ := squads.VaultPDA(ms, 0)
	p := parseOne(t, policyYAML("name: sw", "kind: strategy-withdraw", `schedule: "@hourly"`, "params: {buffer: 0}",
		"authority: {squads: {multisig: "+ms.String()+", vault_index: 0}}"))
	own, multi := lendingVault(), lendingVault()
	multi.VaultStrategy.Strategy.Authority = vaultPDA.String()
	for _, c := range []struct {
		name string
		v    market.Vault
		want int
	}{{"wallet's strategy", own, 0}, {"the multisig vault's strategy", multi, 1}} {
		obs := observe()
		obs.Vaults = []market.Vault{c.v}
		res := evaluate(t, p, obs)
		if len(res.Actions) != c.want {
			t.Fatalf("%s: %d actions, want %d", c.name, len(res.Actions), c.want)
		}
		if c.want == 1 && (res.Actions[0].Authority.Squads == nil || res.Actions[0].Authority.Squads.Multisig != ms.String()) {
			t.Fatalf("%s: the action carries authority %+v", c.name, res.Actions[0].Authority)
		}
	}
}

// TestSquadsAuthorityErrors: the authority applies to vault-operator kinds
// and needs a base58 multisig.
func TestSquadsAuthorityErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{policyYAML("name: r", "kind: repay", `schedule: "@hourly"`, "params: {trigger_health: 0.1, target_health: 0.3}",
			"authority: {squads: {multisig: "+key("m")+"}}"), "strategy-update and strategy-withdraw only"},
		{policyYAML("name: sw", "kind: strategy-withdraw", `schedule: "@hourly"`, "params: {buffer: 0}",
			"authority: {squads: {multisig: nope}}"), "is not a base58 address"},
	} {
		_, err := Parse("p.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one saying %q", err, c.want)
		}
	}
}
