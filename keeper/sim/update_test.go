package sim

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
)

// TestStrategyUpdateEveryMember adds, changes and removes collateral terms and sets every parameter,
// then reads the strategy's account to check each change landed.
func TestStrategyUpdateEveryMember(t *testing.T) {
	e := newEnv(t, Options{})
	alpha := e.addr(t, ids.KindStrategy, "alpha")
	sol, jto, jitosol := e.addr(t, ids.KindMint, "SOL").String(), e.addr(t, ids.KindMint, "JTO").String(), e.addr(t, ids.KindMint, "JITOSOL").String()
	d7 := market.StrategyDuration{DurationType: market.DurationDays, Duration: 7}
	d2w := market.StrategyDuration{DurationType: market.DurationWeeks, Duration: 2}
	ext := "ExtMarketInfo1111111111111111111111111111111"
	req := market.StrategyUpdateRequest{Strategy: alpha.String(),
		CollateralTerms: &market.CollateralTerms{
			AddCollateral: map[string]market.AddCollateral{
				jto: {DurationsAndApys: market.DurationAPYs(map[market.StrategyDuration]market.CBPS{d7: 150_000, d2w: 160_000}),
					ExternalMarketInformationAddress: &ext,
					MarketInformation: &market.ParsedUpdateAssetData{AssetIdentifier: jto, Ltv: ptr(int32(400_000)),
						LiquidationThreshold: ptr(int32(500_000)), MaxAge: ptr(int32(60)), OracleType: ptr(market.OracleType(2)),
						MaxCollateralAllocationPct: ptr("10")}},
				jitosol: {DurationsAndApys: market.DurationAPYs(map[market.StrategyDuration]market.CBPS{d7: 1}),
					MarketInformation: &market.ParsedUpdateAssetData{AssetIdentifier: jitosol, RemoveCollateral: ptr(true)}},
			},
			UpdateCollateral: map[string]market.CollateralParamsUpdate{sol: {LtvUpdate: &market.ParsedUpdateAssetData{AssetIdentifier: sol, Ltv: ptr(int32(550_000))}}},
			RemoveCollateral: map[string]market.RemoveCollateral{jto: {Durations: []market.StrategyDuration{d2w}}},
		},
		UpdateParams: &market.UpdateParams{InterestFee: ptr(int64(11)), LiquidityBuffer: ptr(int64(22)), OriginationCap: ptr(int64(33)),
			OriginationFee: ptr(int64(44)), PrincipalFee: ptr(int64(55)), ExternalYieldSource: &market.ExternalYieldSource{NewExternalYieldSource: 3}},
	}
	txs, err := e.market.UpdateStrategy(e.ctx, "every-1", req)
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range txs {
		e.landed(t, e.send(t, signAPI(t, tx, testKey)))
	}
	st, err := e.sim.accts.strategy(e.sim.w.StratByAdr[alpha])
	if err != nil {
		t.Fatal(err)
	}
	if got := []int64{st.InterestFee, st.LiquidityBuffer, st.OriginationCap, st.OriginationFee, st.PrincipalFee, int64(st.ExternalYieldSource)}; !slices.Equal(got, []int64{11, 22, 33, 44, 55, 3}) {
		t.Errorf("parameters %v", got)
	}
	var ids []string
	for _, term := range st.Terms {
		ids = append(ids, term.AssetIdentifier)
	}
	if !slices.Equal(ids, []string{sol, jto}) {
		t.Fatalf("terms %v, want SOL and JTO (JITOSOL added and removed)", ids)
	}
	if st.Terms[0].Ltv != 550_000 {
		t.Errorf("SOL ltv %d, want 550000", st.Terms[0].Ltv)
	}
	j := st.Terms[1]
	wantMeta := map[string]string{"externalMarketInformationAddress": ext, "maxAge": "60", "oracleType": "2"}
	if j.Ltv != 400_000 || j.Lqt != 500_000 || j.MaxAllocationPct != "10" || !maps.Equal(j.Meta, wantMeta) ||
		!maps.Equal(j.Apys, map[string]int64{d7.Key(): 150_000}) {
		t.Errorf("JTO term %+v", j)
	}
}

func TestCompareQuotes(t *testing.T) {
	qs := []apiwire.Quote{
		{Apy: 90, Amount: 5, Strategy: "b"},
		{Apy: 80, Amount: 1, Strategy: "c"},
		{Apy: 80, Amount: 9, Strategy: "z"},
		{Apy: 80, Amount: 9, Strategy: "a"},
	}
	slices.SortFunc(qs, compareQuotes)
	var order []string
	for _, q := range qs {
		order = append(order, q.Strategy)
	}
	if !slices.Equal(order, []string{"a", "z", "c", "b"}) {
		t.Errorf("order %v, want lowest APY, then larger amount, then lower strategy", order)
	}
}

func TestLoadScenarioFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, DefaultScenarioYAML(), 0o600); err != nil {
		t.Fatal(err)
	}
	sc, err := LoadScenario(path)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "default" || len(sc.Events) != 10 {
		t.Errorf("loaded %q with %d events", sc.Name, len(sc.Events))
	}
	if _, err := LoadScenario(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Errorf("a missing file loaded")
	}
}
