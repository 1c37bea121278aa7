package examples_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/keeper-project/keeper/keeper/sim"
)

// owedAlert is a policy file whose alert prints the dex-a position's fee facts.
const owedAlert = `policies:
  - name: owed-dex-a
    kind: alert
    schedule: "@every 5s"
    select: { target: positions }
    when: position.dex == "dex-a" && position.owed_known
    params:
      severity: info
      message: "owed {{.position.fees_owed_0}} {{.position.fees_owed_1}}"
`

// dexAOwedMatchesFormula runs `keeper plan --json` once pos-a's pool paid swap fees and left its
// range (20s), before anything touched pos-a: the fees keeper reports owed must equal, to the unit,
// dex-a's formula (raydium-clmm get_fee_growth_inside and calculate_latest_token_fees) applied
// with math/big to the raw accounts the simulator holds.
func dexAOwedMatchesFormula(t *testing.T, w *workspace) {
	st := w.sim.state(t)
	pos := st.Positions["pos-a"]
	if pos.InRange || pos.FeesStored0 != 0 || pos.FeesStored1 != 0 {
		t.Fatalf("pos-a before the check: %+v; want out of range with nothing stored", pos)
	}
	want := [2]uint64{dexAFormula(t, pos, 0), dexAFormula(t, pos, 1)}
	if want[0] == 0 || want[1] == 0 {
		t.Fatalf("formula gives %v: the scenario should have paid pos-a fees in both tokens", want)
	}
	t.Logf("pos-a owed by the formula: %d SOL units, %d USDC units", want[0], want[1])
	file := filepath.Join(t.TempDir(), "owed-a.yaml")
	if err := os.WriteFile(file, []byte(owedAlert), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := w.config(t, "owed-a", []string{file})
	out := runKeeper(t, w.dir, "plan", "--config", cfg, "--json").wantExit(t, 0).stdout
	var plans []struct {
		Policy  string `json:"policy"`
		Actions []struct {
			Target   string `json:"target"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
		} `json:"actions"`
	}
	if err := json.Unmarshal([]byte(out), &plans); err != nil {
		t.Fatalf("plan --json: %v\n%s", err, out)
	}
	var got string
	for _, p := range plans {
		for _, a := range p.Actions {
			if p.Policy == "owed-dex-a" && a.Target == pos.Mint && a.Severity != "" {
				got = a.Message
			}
		}
	}
	if wantMsg := fmt.Sprintf("owed %d %d", want[0], want[1]); got != wantMsg {
		t.Errorf("keeper says %q, the program's formula %q", got, wantMsg)
	}
	if pos.FeesOwed0 != want[0] || pos.FeesOwed1 != want[1] {
		t.Errorf("the simulator says pos-a is owed %d/%d, the formula %v", pos.FeesOwed0, pos.FeesOwed1, want)
	}
}

// dexAFormula is dex-a's fees owed in token i, computed with math/big: below = outside_lower when
// current >= lower else global - outside_lower; above = outside_upper when current < upper else
// global - outside_upper; inside = global - below - above; delta = inside - checkpoint (all mod
// 2^128); fee = floor(delta × liquidity / 2^64), 0 when it is u64::MAX or more; owed = stored + fee.
func dexAFormula(t *testing.T, pos sim.ControlPosition, i int) uint64 {
	num := func(s string) *big.Int {
		v, ok := new(big.Int).SetString(s, 10)
		if !ok {
			t.Fatalf("bad number %q", s)
		}
		return v
	}
	mod := new(big.Int).Lsh(big.NewInt(1), 128)
	wrap := func(v *big.Int) *big.Int { return v.Mod(v, mod) }
	g := pos.Growth
	global, lower, upper := num(g.Global[i]), num(g.LowerOutside[i]), num(g.UpperOutside[i])
	below := new(big.Int).Set(lower)
	if pos.PoolTick < g.LowerIndex {
		below = wrap(new(big.Int).Sub(global, lower))
	}
	above := new(big.Int).Set(upper)
	if pos.PoolTick >= g.UpperIndex {
		above = wrap(new(big.Int).Sub(global, upper))
	}
	inside := wrap(new(big.Int).Sub(new(big.Int).Sub(global, below), above))
	delta := wrap(new(big.Int).Sub(inside, num(g.Checkpoint[i])))
	fee := new(big.Int).Rsh(new(big.Int).Mul(delta, num(pos.Liquidity)), 64)
	if fee.Cmp(new(big.Int).SetUint64(^uint64(0))) >= 0 {
		fee.SetUint64(0)
	}
	stored := []uint64{pos.FeesStored0, pos.FeesStored1}[i]
	v, err := strconv.ParseUint(fee.Add(fee, new(big.Int).SetUint64(stored)).String(), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
