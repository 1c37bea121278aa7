package chain_test

import (
	"errors"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
)

// TestSimulateNotMaskedByConcurrentInflow lands an inflow to the wallet between keeper's read of
// the wallet and the simulation (another action of keeper's landing, or anyone paying the wallet):
// measured against the stale read, a transfer out of the same size would look free. Simulate must
// report the transfer's whole outflow.
func TestSimulateNotMaskedByConcurrentInflow(t *testing.T) {
	const amount = 1_000_000
	synctest.Test(t, func(t *testing.T) {
		var e *env
		var once sync.Once
		e = newEnv(t, envConfig{rewrite: func(c *rpcCall) {
			if c.Method == "simulateTransaction" {
				once.Do(func() { e.fund(t, e.wallet.PublicKey(), amount) })
			}
		}})
		waitSlots(2)
		tx := e.simulateTransfer(t, amount)
		e.notLanded(t, tx.Signature)
	})
}

// TestSimulateGivesUpOnAWalletThatKeepsMoving: on a node that returns no balances with simulations,
// when every try sees the wallet change during the simulation, Simulate measures nothing and says
// so with a retryable error.
func TestSimulateGivesUpOnAWalletThatKeepsMoving(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var e *env
		e = newEnv(t, envConfig{sim: chainsim.Options{SimulateWithoutBalances: true}, rewrite: func(c *rpcCall) {
			if c.Method == "simulateTransaction" {
				e.fund(t, e.wallet.PublicKey(), 1)
			}
		}})
		waitSlots(2)
		tx := transferTx(t, e.wallet, 1_000, e.blockhash(t))
		sim, err := e.client.Simulate(t.Context(), unsignedByWallet(tx.Raw), e.wallet.PublicKey())
		if !errors.Is(err, chain.ErrWalletMoving) || !chain.Retryable(err) || sim != nil {
			t.Fatalf("Simulate = %+v, %v; want no result and a retryable ErrWalletMoving", sim, err)
		}
		if n := e.rpc.count("simulateTransaction"); n != 4 {
			t.Errorf("%d simulations, want the first (which finds no balances) and 3 tries", n)
		}
	})
}

// TestSimulateWithBalancesIgnoresAMovingWallet: on a node that returns balances with simulations,
// the measure comes from the one bank the simulation ran on, so a wallet paid during every
// simulation costs nothing: one request, the transfer's whole outflow.
func TestSimulateWithBalancesIgnoresAMovingWallet(t *testing.T) {
	const amount = 1_000
	synctest.Test(t, func(t *testing.T) {
		var e *env
		e = newEnv(t, envConfig{rewrite: func(c *rpcCall) {
			if c.Method == "simulateTransaction" {
				e.fund(t, e.wallet.PublicKey(), 1)
			}
		}})
		waitSlots(2)
		e.simulateTransfer(t, amount)
		if n, reads := e.rpc.count("simulateTransaction"), e.rpc.count("getMultipleAccounts"); n != 1 || reads != 0 {
			t.Errorf("%d simulations and %d account reads, want one simulation alone", n, reads)
		}
	})
}

// simulateTransfer simulates a transfer of amount lamports from the wallet
// and checks that its outflow is the transfer and the fee.
func (e *env) simulateTransfer(t *testing.T, amount uint64) chain.Signed {
	t.Helper()
	tx := transferTx(t, e.wallet, amount, e.blockhash(t))
	sim, err := e.client.Simulate(t.Context(), unsignedByWallet(tx.Raw), e.wallet.PublicKey())
	if err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	if want := int64(amount) + int64(sim.Fee.Total()); sim.Outflows.Lamports != want {
		t.Errorf("outflow %d lamports, want the transfer and the fee, %d", sim.Outflows.Lamports, want)
	}
	return tx
}
