package chain_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/gagliardetto/solana-go"
	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/inject"
)

// TestLaggingStatusesNeverExpireALandedTransaction: the node answering
// getSignatureStatuses lags 60 slots behind the one answering
// isBlockhashValid (two backends behind one load balancer). Every send is
// dropped until the blockhash has 20 slots of life left; the next
// rebroadcast lands. When the blockhash is gone, the lagging node does not
// know the transaction yet: it must not count as expired (a new attempt
// would do the work twice) until a status answer has seen the slots up to
// the expiry; then it is found landed.
func TestLaggingStatusesNeverExpireALandedTransaction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lagging := inject.MethodFaults{LagSlots: 60}
		e := newEnv(t, envConfig{sim: chainsim.Options{Faults: chainsim.Faults{RPC: inject.ServiceFaults{
			Methods: map[string]inject.MethodFaults{
				"sendTransaction":      {Rates: inject.Rates{NeverLand: 1}},
				"getSignatureStatuses": lagging,
			},
		}}}})
		waitSlots(2)
		tx := transferTx(t, e.wallet, 5000, e.blockhash(t))
		done := make(chan chain.Result, 1)
		go func() {
			res, err := e.client.SendAndConfirm(t.Context(), []chain.Signed{tx})
			if err != nil {
				t.Errorf("SendAndConfirm: %v", err)
			}
			done <- res
		}()
		waitSlots(chainsim.MaxBlockhashAge - 20)
		if err := e.sim.SetFaults(chainsim.Faults{RPC: inject.ServiceFaults{
			Methods: map[string]inject.MethodFaults{"getSignatureStatuses": lagging},
		}}); err != nil {
			t.Fatal(err)
		}
		res := <-done
		l := e.landed(t, tx.Signature)
		if res.Outcome != chain.OutcomeLanded || res.Txs[0].State != chain.TxLanded || res.Txs[0].Slot != l.Slot {
			t.Fatalf("result %v %+v; the transaction landed in slot %d", res.Outcome, res.Txs[0], l.Slot)
		}
	})
}

// TestSettleWaitsForALaggingStatusNode: recovery's Settle of an attempt
// whose blockhash has just expired, asked of a status node 60 slots behind:
// it is still pending (the node has not seen the slots the transaction
// could have landed in), and dead once that node has caught up past the
// expiry.
func TestSettleWaitsForALaggingStatusNode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, envConfig{sim: chainsim.Options{Faults: chainsim.Faults{RPC: inject.ServiceFaults{
			Methods: map[string]inject.MethodFaults{"getSignatureStatuses": {LagSlots: 60}},
		}}}})
		waitSlots(2)
		tx := transferTx(t, e.wallet, 5000, e.blockhash(t)) // signed, never sent
		ref := [][]chain.TxRef{{{Signature: tx.Signature, Blockhash: tx.Blockhash}}}
		waitSlots(chainsim.MaxBlockhashAge + 5)
		s, err := e.client.Settle(t.Context(), ref)
		if err != nil || s.Verdict != chain.VerdictPending {
			t.Fatalf("just after the expiry: %v, %v; want pending while the status node lags", s.Verdict, err)
		}
		waitSlots(60)
		if s, err = e.client.Settle(t.Context(), ref); err != nil || s.Verdict != chain.VerdictDead {
			t.Fatalf("once the status node caught up: %v, %v; want dead", s.Verdict, err)
		}
	})
}

// TestReadsNeverGoBehindWhatTheClientSaw: account reads are served by a
// node 8 slots behind the cluster. Once the client has seen its
// transfer land, a read must not show the chain as it was before the
// transfer (the recipient's account missing): the node refuses the
// client's minContextSlot and the read fails naming the slot, until the
// node has caught up and shows the recipient's account.
func TestReadsNeverGoBehindWhatTheClientSaw(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const lag = 8
		lagging := inject.MethodFaults{LagSlots: lag}
		e := newEnv(t, envConfig{sim: chainsim.Options{Faults: chainsim.Faults{RPC: inject.ServiceFaults{
			Methods: map[string]inject.MethodFaults{"getMultipleAccounts": lagging},
		}}}})
		waitSlots(2 * lag)
		recipient := newKey(t).PublicKey()
		tx := signTx(t, []solana.Instruction{transferIx(e.wallet.PublicKey(), recipient, 1_000_000)}, e.blockhash(t), e.wallet)
		res, err := e.client.SendAndConfirm(t.Context(), []chain.Signed{tx})
		if err != nil || res.Outcome != chain.OutcomeLanded {
			t.Fatalf("transfer: %v, %v", res.Outcome, err)
		}
		accs, err := e.client.Accounts(t.Context(), []solana.PublicKey{recipient})
		if err == nil && accs[0] == nil {
			t.Fatalf("a read after the transfer landed in slot %d shows the recipient's account missing: the lagging node's stale state", res.Txs[0].Slot)
		}
		if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("has not reached slot %d", res.Txs[0].Slot)) {
			t.Fatalf("read refused with %v; want it to name slot %d", err, res.Txs[0].Slot)
		}
		waitSlots(lag)
		accs, err = e.client.Accounts(t.Context(), []solana.PublicKey{recipient})
		if err != nil || accs[0] == nil || accs[0].Lamports != 1_000_000 {
			t.Fatalf("once the node caught up: %+v, %v; want the recipient's 1,000,000 lamports", accs, err)
		}
	})
}
