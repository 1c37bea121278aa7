package examples_test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// reportScenario has collateral histories, deposits and loops whose reports are worked out by hand
// in TestE2EReport. X has 2 decimals and RWD 3. Offsets count from the simulator's start; the
// rewards range is [start-900s, start-400s).
const reportScenario = `
name: report
wallet: {sol: "10"}
mints:
  - {symbol: USDC, decimals: 6, price: 1}
  - {symbol: X, decimals: 2, price: 1}
  - {symbol: Y, decimals: 6, price: 1}
  - {symbol: RWD, decimals: 3, price: 2}
wallets:
  - {name: alice, fund: {sol: "1"}}
  - {name: bob, fund: {sol: "1"}}
  - {name: carol, fund: {sol: "1"}}
strategies:
  - name: s1
    authority: $wallet
    principal_mint: USDC
    idle: "1000"
    terms:
      - {collateral: X, ltv: 500000, lqt: 700000, apys: {30d: 100000}}
  - name: s2
    authority: bob
    principal_mint: Y
    idle: "0"
    external_yield: "50"
    terms:
      - {collateral: X, ltv: 500000, lqt: 700000, apys: {30d: 100000}}
vaults:
  - name: v1
    strategy: s1
    deposits:
      - {user: alice, amount: "600"}
      - {user: bob, amount: "300"}
  - name: v2
    strategy: s2
    deposits:
      - {user: carol, amount: "50"}
loans:
  - name: la
    borrower: alice
    collateral: [{mint: X, amount: "6"}]
    history:
      - {at: "-1000s", kind: AddCollateral, asset: X, amount: "10"}
      - {at: "-600s", kind: RemoveCollateral, asset: X, amount: "4"}
  - name: lb
    borrower: bob
    collateral: [{mint: X, amount: "5"}]
    history:
      - {at: "-700s", kind: AddCollateral, asset: X, amount: "5"}
  - name: lc
    borrower: carol
    collateral: [{mint: X, amount: "3"}]
    history:
      - {at: "-400s", kind: AddCollateral, asset: X, amount: "3"}
loops:
  - {identifier: usdc-x, principal_mint: USDC, collateral_mint: X, collateral_deposited: 14, wavg_apy: 0.05, max_apy: 0.09}
  - {identifier: y-x, principal_mint: Y, collateral_mint: X, collateral_deposited: 2, wavg_apy: 0.04, max_apy: 0.2}
`

// TestE2EReport runs the three reports against the simulator.
//
// Rewards of 1 RWD (1000 units) over [start-900s, start-400s): alice holds 10 X from before the range
// (collapsed into its start) until she removes 4 at -600s, then 6: 10·300 + 6·200 = 4200 X·s; bob
// adds 5 at -700s: 5·300 = 1500; carol's add at the range's end counts zero. Of 5700, alice's exact
// share is 736.84 units and bob's 263.16: the floors sum to 999, and the one unit left goes to the
// larger fractional part, alice's: 737 and 263.
func TestE2EReport(t *testing.T) {
	needBinary(t)
	t.Parallel()
	scenario := filepath.Join(t.TempDir(), "report.yaml")
	if err := os.WriteFile(scenario, []byte(reportScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startSimWith(t, "--manual-clock", "--scenario", scenario)
	w := newWorkspace(t, s)
	cfg := w.config(t, "report", nil)
	st := s.state(t)
	start := st.Now.Add(-time.Duration(st.Elapsed * float64(time.Second)))
	alice, bob, carol := s.address(t, "wallet", "alice"), s.address(t, "wallet", "bob"), s.address(t, "wallet", "carol")
	x, rwd := s.address(t, "mint", "X"), s.address(t, "mint", "RWD")
	unix := func(d time.Duration) string { return fmt.Sprint(start.Add(d).Unix()) }

	t.Run("rewards", func(t *testing.T) {
		out := runKeeper(t, w.dir, "report", "rewards", "--config", cfg, "--mint", x, "--from", unix(-900*time.Second),
			"--to", unix(-400*time.Second), "--budget", "1 RWD", "--reward-mint", rwd, "--json").wantExit(t, 0).stdout
		var rep struct {
			Budget uint64 `json:"budget"`
			Shares []struct {
				Holder         string  `json:"holder"`
				DepositSeconds float64 `json:"deposit_seconds"`
				Units          uint64  `json:"units"`
				Remainder      bool    `json:"remainder"`
			} `json:"shares"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("report rewards --json: %v\n%s", err, out)
		}
		want := map[string][2]float64{alice: {4200, 737}, bob: {1500, 263}, carol: {0, 0}}
		var sum uint64
		for _, sh := range rep.Shares {
			sum += sh.Units
			if w, ok := want[sh.Holder]; !ok || w[0] != sh.DepositSeconds || w[1] != float64(sh.Units) {
				t.Errorf("share %+v, want deposit-seconds and units %v", sh, w)
			}
			if sh.Remainder != (sh.Holder == alice) {
				t.Errorf("%s remainder %v: only alice takes the remainder's unit", sh.Holder, sh.Remainder)
			}
		}
		if rep.Budget != 1000 || sum != 1000 || len(rep.Shares) != 3 {
			t.Errorf("budget %d split into %d units over %d shares, want 1000 over 3", rep.Budget, sum, len(rep.Shares))
		}
		table := runKeeper(t, w.dir, "report", "rewards", "--config", cfg, "--mint", x, "--from", unix(-900*time.Second),
			"--to", unix(-400*time.Second), "--budget", "1000", "--reward-mint", rwd).wantExit(t, 0).stdout
		if !strings.Contains(table, "0.737 RWD *") || !strings.Contains(table, "0.263 RWD") {
			t.Errorf("the table shows no amounts in RWD:\n%s", table)
		}
		plain := runKeeper(t, w.dir, "report", "rewards", "--config", cfg, "--mint", x, "--from", unix(-900*time.Second),
			"--to", unix(-400*time.Second), "--budget", "1000").wantExit(t, 0).stdout
		if !strings.Contains(plain, "737 units *") || strings.Contains(plain, "units of") {
			t.Errorf("a budget in units without a reward mint is not shown in units:\n%s", plain)
		}
	})

	t.Run("depositors", func(t *testing.T) {
		out := runKeeper(t, w.dir, "report", "depositors", "--config", cfg, "--csv").wantExit(t, 0).stdout
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatalf("report depositors --csv: %v\n%s", err, out)
		}
		got := map[string]string{}
		for _, r := range rows[1:] {
			got[r[2]] = r[4] + " of " + r[0]
		}
		v1, v2 := s.address(t, "vault", "v1"), s.address(t, "vault", "v2")
		want := map[string]string{alice: "600 USDC of " + v1, bob: "300 USDC of " + v1, carol: "50 Y of " + v2}
		if len(rows) != 4 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("depositors %v, want %v\n%s", got, want, out)
		}
	})

	t.Run("vaults", func(t *testing.T) {
		out := runKeeper(t, w.dir, "report", "vaults", "--config", cfg, "--json").wantExit(t, 0).stdout
		var rep struct {
			Vaults []struct {
				Address    string  `json:"address"`
				TVL        float64 `json:"tvl"`
				LendingAPY float64 `json:"lending_apy"`
				Loops      []struct {
					Identifier     string  `json:"identifier"`
					WAvgAPY        float64 `json:"w_avg_apy"`
					Representative bool    `json:"max_apy_representative"`
				} `json:"loops"`
			} `json:"vaults"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("report vaults --json: %v\n%s", err, out)
		}
		loops := map[string]string{}
		for _, v := range rep.Vaults {
			for _, l := range v.Loops {
				loops[l.Identifier] = fmt.Sprintf("%g %v", l.WAvgAPY, l.Representative)
			}
		}
		// v2's principal Y has no idle liquidity, so y-x's maxApy is flagged.
		if want := map[string]string{"usdc-x": "0.05 true", "y-x": "0.04 false"}; fmt.Sprint(loops) != fmt.Sprint(want) || len(rep.Vaults) != 2 {
			t.Errorf("loops %v over %d vaults, want %v over 2\n%s", loops, len(rep.Vaults), want, out)
		}
		table := runKeeper(t, w.dir, "report", "vaults", "--config", cfg).wantExit(t, 0).stdout
		if !strings.Contains(table, "borrow liquidity exhausted") {
			t.Errorf("the table does not flag y-x's maxApy:\n%s", table)
		}
	})

	t.Run("usage", func(t *testing.T) {
		r := runKeeper(t, w.dir, "report", "rewards", "--config", cfg, "--mint", x).wantExit(t, 2)
		if !strings.Contains(r.stderr, "--from, --to, --budget required") {
			t.Errorf("stderr %q does not name the missing flags", r.stderr)
		}
		runKeeper(t, w.dir, "report", "vaults", "--config", cfg, "--mint", x).wantExit(t, 2)
		runKeeper(t, w.dir, "report", "nothing", "--config", cfg).wantExit(t, 2)
	})
}
