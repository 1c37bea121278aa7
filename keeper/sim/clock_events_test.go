package sim

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/keeper-project/keeper/keeper/sim/chainsim"
)

// TestEventsRunOnTheirOwnOnARealClock: on a clock that moves by itself the
// default scenario's events run when they fall due, with no request to
// run them first (a websocket subscriber asks for nothing); a manual
// clock leaves them to Advance.
func TestEventsRunOnTheirOwnOnARealClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := New(Options{Clock: chainsim.RealClock{}, Wallet: testWallet()})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		pending := s.Events().Pending()
		s.events.runOnTheClock(ctx)
		time.Sleep(11 * time.Second) // the scenario's events at 5 s and 10 s
		synctest.Wait()
		if ran := pending - s.Events().Pending(); ran < 2 {
			t.Fatalf("%d events ran in 11 s without a request, want those at 5 s and 10 s", ran)
		}
		if p, _ := s.Accounts().Price(s.mustMint(t, "SOL")); p != 110 {
			t.Errorf("SOL at %v after the 10 s oracle event, want 110", p)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		s, err := New(Options{Clock: chainsim.NewManualClock(testStart), Wallet: testWallet()})
		if err != nil {
			t.Fatal(err)
		}
		pending := s.Events().Pending()
		s.events.runOnTheClock(t.Context())
		time.Sleep(11 * time.Second)
		synctest.Wait()
		if s.Events().Pending() != pending {
			t.Fatal("events ran on a manual clock that did not move")
		}
	})
}

// mustMint returns the address of the scenario's mint sym.
func (s *Sim) mustMint(t *testing.T, sym string) (addr [32]byte) {
	t.Helper()
	a, ok := s.Accounts().Address("mint", sym)
	if !ok {
		t.Fatalf("no mint %s", sym)
	}
	return a
}
