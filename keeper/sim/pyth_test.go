package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/prices"
)

// pythOf reads and decodes mint's price feed account.
func pythOf(t *testing.T, e *env, symbol string) (prices.Update, solana.PublicKey) {
	t.Helper()
	f := e.sim.w.MintBySym[symbol].Pyth
	a, ok := e.sim.chain.State.Account(f.Account)
	if !ok {
		t.Fatalf("%s: no price feed account at %s", symbol, f.Account)
	}
	u, err := prices.DecodeUpdate(a.Data)
	if err != nil || a.Owner != prices.ReceiverProgram {
		t.Fatalf("%s: owner %s, %v", symbol, a.Owner, err)
	}
	return u, f.Account
}

// TestPythFeedsPushedLikeSponsoredFeeds: each scenario mint with a feed has
// a fully verified PriceUpdateV2 at the feed's sponsored shard-0 address,
// holding its oracle price; it is pushed again on the 60 s heartbeat and at
// once on a move above 0.5 %, and not at all once halted.
func TestPythFeedsPushedLikeSponsoredFeeds(t *testing.T) {
	sc, err := ParseScenario("pyth.yaml", []byte(strings.Replace(string(DefaultScenarioYAML()), "\nevents:\n", `
events:
  - at: 20s
    oracle: {JTO: 2.51}
  - at: 40s
    oracle: {JTO: 2.6}
  - at: 50s
    pyth: {halt: [JTO]}
`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{Scenario: sc})
	sol, account := pythOf(t, e, "SOL")
	want, _ := prices.FeedAccount(sol.Feed, 0)
	if account != want || sol.Feed.String() != "ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d" {
		t.Errorf("SOL feed %s at %s, want Pyth's SOL/USD at %s", sol.Feed, account, want)
	}
	if !sol.Full || !near(sol.Value(), 150) || !sol.PublishTime.Equal(testStart) || sol.WriteAuthority != account {
		t.Errorf("SOL at start: %+v", sol)
	}
	steps := []struct {
		at        time.Duration
		price     float64
		published time.Duration
		why       string
	}{
		{25 * time.Second, 2.5, 0, "a 0.4 % move is under the deviation: not pushed"},
		{45 * time.Second, 2.6, 40 * time.Second, "a 4 % move is pushed at once"},
		{70 * time.Second, 2.6, 40 * time.Second, "halted at 50 s: not pushed on the heartbeat"},
	}
	for _, s := range steps {
		e.clock.Advance(testStart.Add(s.at).Sub(e.clock.Now()))
		if _, err := e.sim.Events().RunDue(); err != nil {
			t.Fatal(err)
		}
		u, _ := pythOf(t, e, "JTO")
		if !near(u.Value(), s.price) || !u.PublishTime.Equal(testStart.Add(s.published)) {
			t.Errorf("%s: price %v published %s", s.why, u.Value(), u.PublishTime.Sub(testStart))
		}
	}
	usdc, _ := pythOf(t, e, "USDC")
	if !usdc.PublishTime.Equal(testStart.Add(70 * time.Second)) {
		t.Errorf("USDC: published at %s, want re-pushed on the heartbeat (70 s)", usdc.PublishTime.Sub(testStart))
	}
}
