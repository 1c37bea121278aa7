package examples_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keeper-project/keeper/keeper/sim"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/scenario"
)

const deleverage = "policies/deleverage.yaml"

// The default scenario's wallet funding, which deleverageScenario empties of USDC, and the pool it
// adds, which follows the oracle's SOL price to 110 at 10s.
const (
	defaultWalletFunding = "\nwallet:\n  sol: \"10\"\n  tokens: {USDC: \"1000\"}\n"
	deleverageWallet     = "\nwallet:\n  sol: \"10\"\n  tokens: {USDC: \"0\"}\n"
	deleverageAMM        = "\namms:\n  - {name: sol-usdc, base: SOL, quote: USDC, base_reserve: 10000, fee_bps: 30}\n"
	deleverageAMMEvent   = "\nevents:\n  - {at: 10s, amm: {name: sol-usdc, price: 110}}\n"
)

// deleverageScenario writes the default scenario with a wallet holding no USDC and a SOL/USDC pool
// behind the simulator's Jupiter API, and returns `keeper sim`'s arguments to load it.
func deleverageScenario(t *testing.T) []string {
	y := string(sim.DefaultScenarioYAML())
	if !strings.Contains(y, defaultWalletFunding) || !strings.Contains(y, "\nevents:\n") {
		t.Fatal("the default scenario's wallet funding or events moved: update deleverageScenario")
	}
	y = strings.Replace(y, defaultWalletFunding, deleverageWallet, 1)
	y = strings.Replace(y, "\nevents:\n", deleverageAMMEvent, 1) + deleverageAMM
	path := filepath.Join(t.TempDir(), "deleverage-scenario.yaml")
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"--scenario", path}
}

// deleverageCase is the crash matrix's repay from collateral: at 15s repay-me is under its trigger
// with no USDC in the wallet, so deleverage.yaml sells SOL through the pool, exactly once.
var deleverageCase = crashCase{name: "deleverage", at: 15, files: []string{deleverage},
	want: func(_ *testing.T, _ *simProc, st sim.ControlState) map[string]string {
		return map[string]string{"deleverage": st.Loans["repay-me"].Address}
	},
	simArgs: deleverageScenario,
	edit: func(s *simProc, cfg map[string]any) {
		swap := section(cfg, "swap")
		swap["base_url"], swap["programs"] = s.urls.Market+sim.JupiterPrefix, []string{ids.SwapProgramID.String()}
	},
	check: func(t *testing.T, st sim.ControlState) {
		if p := st.AMMs["sol-usdc"]; p.Swaps != 1 {
			t.Errorf("the pool executed %d swaps, want the one sale", p.Swaps)
		}
	},
}

// TestE2EDeleverageRefusesAMovedPool: another process thins the pool through POST /_sim/amm before
// keeper acts; the sale would cost more than the oracle bound, so keeper refuses it under
// swap-price and nothing is sold.
func TestE2EDeleverageRefusesAMovedPool(t *testing.T) {
	needBinary(t)
	t.Parallel()
	c := deleverageCase
	s := c.startSim(t, 1)
	w := newWorkspace(t, s)
	s.until(t, c.at)
	body, _ := json.Marshal(scenario.AMMEvent{Name: "sol-usdc", BaseReserve: 20})
	var moved sim.AMMState
	if err := s.call(t.Context(), http.MethodPost, "amm", body, &moved); err != nil || moved.BaseReserve != 20 {
		t.Fatalf("POST /_sim/amm: %+v, %v", moved, err)
	}
	cfg := c.config(t, w, nil)
	r := s.runActing(t, w.dir, "run", "--once", "--config", cfg, "--log-format", "json")
	if r.code != 1 {
		t.Fatalf("keeper run --once exited %d, want 1 (an action refused); stderr:\n%s", r.code, r.stderr)
	}
	acts := w.history(t, cfg)
	if len(acts) != 1 || acts[0].State != "refused" || acts[0].Rule != "swap-price" {
		t.Fatalf("actions %+v, want one refused under swap-price", acts)
	}
	if st := s.state(t); st.AMMs["sol-usdc"].Swaps != 0 || len(st.Signed) != 0 {
		t.Errorf("the pool executed %d swaps and the wallet signed %d transactions, want none", st.AMMs["sol-usdc"].Swaps, len(st.Signed))
	}
}
