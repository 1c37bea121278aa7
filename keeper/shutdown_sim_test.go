package keeper

import (
	"context"
	"github.com/keeper-project/keeper/keeper/internal/action"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/journal"
)

// TestShutdownLetsActionReachSafePoint cancels Run while the repay is being
// built: Run stops scheduling, waits for the run in progress, which lands
// and journals the repay, and returns nil well before the shutdown bound;
// nothing is called afterwards, and the bubble ending proves that no
// goroutine of keeper, its clients or the journal is left behind.
func TestShutdownLetsActionReachSafePoint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, "auto-repay.yaml")
		building := newSignal()
		w.net.before = func(c netCall, _ []byte) {
			if c.Key != "" {
				building.fire()
			}
		}
		k := w.open(t, "")
		r := k.start(t)
		<-building.ch
		stopped := time.Now()
		if err := r.stop(); err != nil {
			t.Fatalf("Run = %v, want nil", err)
		}
		if took := time.Since(stopped); took >= shutdownTimeout {
			t.Errorf("shutdown took %v, not less than its bound %v", took, shutdownTimeout)
		}
		acts := k.actionsOf(t, "auto-repay")
		if len(acts) != 1 || acts[0].State != journal.StateLanded {
			t.Fatalf("after shutdown: %+v, want the repay in flight landed", acts)
		}
		if want, got := checkOnChain(t, w, acts[0]), len(w.landed.paidBy(w.wallet())); got != want {
			t.Errorf("%d transactions landed, want %d", got, want)
		}
		calls := len(w.net.log())
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := len(w.net.log()); got != calls {
			t.Errorf("%d calls after Run returned; scheduling did not stop", got-calls)
		}
		if err := k.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
}

// TestShutdownBoundThenRecoveryOnStart: the chain accepts the repay but
// does not land it, so the run in progress cannot finish; shutdown gives up
// after its bound, leaving the action journaled as submitted. The next
// keeper process on the same journal settles it before its first tick by
// sending the journaled bytes again (the blockhash is still valid), without
// building or signing anything new, and its runs then leave it alone.
func TestShutdownBoundThenRecoveryOnStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.useUSDCRepay(t)
		drop := &neverLandFirst{chain: w.sim.Chain()}
		var dropping atomic.Bool
		dropping.Store(true)
		sent := newSignal()
		w.net.before = func(c netCall, body []byte) {
			if c.Method == "sendTransaction" && dropping.Load() {
				drop.before(c, body)
				sent.fire()
			}
		}
		dsn := "sqlite:" + filepath.Join(t.TempDir(), "journal.db")
		first := w.open(t, dsn)
		r := first.start(t)
		<-sent.ch
		stopped := time.Now()
		if err := r.stop(); err != nil {
			t.Fatalf("Run = %v", err)
		}
		if took := time.Since(stopped); took != shutdownTimeout {
			t.Errorf("shutdown took %v, want its bound %v", took, shutdownTimeout)
		}
		acts := first.actionsOf(t, "auto-repay")
		if len(acts) != 1 || acts[0].State != journal.StateSubmitted || len(acts[0].Attempts) != 1 {
			t.Fatalf("after the bounded shutdown: %+v, want one submitted attempt", acts)
		}
		id, sigs := acts[0].ID, acts[0].Attempts[0].Signatures
		if err := first.Close(); err != nil {
			t.Fatal(err)
		}
		dropping.Store(false)

		builds := len(w.net.buildKeys())
		second := w.open(t, dsn)
		r2 := second.start(t)
		act := awaitSettled(t, second, id)
		if act.State != journal.StateLanded || act.AttemptCount != 1 {
			t.Fatalf("recovered: %s after %d attempts (%s), want landed by attempt 1", act.State, act.AttemptCount, act.Detail)
		}
		if runs := second.runs("auto-repay", "ok") + second.runs("auto-repay", "error"); runs != 0 {
			t.Errorf("%v runs before recovery settled the action", runs)
		}
		for _, s := range sigs {
			if x, ok := w.sim.Chain().Ledger.Transaction(solana.MustSignatureFromBase58(s.Signature)); !ok || x.Err != nil {
				t.Errorf("journaled transaction %s: on chain %v, error %v", s.Signature, ok, x.Err)
			}
		}
		time.Sleep(12 * time.Second) // two ticks of the new process
		synctest.Wait()
		if got := second.runs("auto-repay", "ok"); got < 2 {
			t.Errorf("new process ran %v times, want its ticks to run", got)
		}
		if got := len(w.net.buildKeys()); got != builds {
			t.Errorf("%d builds after restart, want none (the action landed)", got-builds)
		}
		if n := len(w.landed.paidBy(w.wallet())); n != 1 {
			t.Errorf("%d transactions landed, want the one repay", n)
		}
		if err := r2.stop(); err != nil {
			t.Errorf("Run = %v", err)
		}
	})
}

// awaitSettled lets virtual time pass a second at a time until action id is
// final, for at most a minute, and returns it.
func awaitSettled(t *testing.T, k *simKeeper, id string) journal.Action {
	t.Helper()
	for range 60 {
		time.Sleep(time.Second)
		synctest.Wait()
		act, err := k.journal.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if act.State.Final() {
			return act
		}
	}
	t.Fatalf("action %s not settled within a minute", action.ShortID(id))
	return journal.Action{}
}
