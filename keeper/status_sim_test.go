package keeper

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestStatusLinksTheRunsTransactions runs auto-repay once through its
// scheduled entry point and checks that /status's last run names the
// repay's signatures with explorer links, as the journal holds them.
func TestStatusLinksTheRunsTransactions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newSimWorld(t, simOptions{})
		w.usePolicies(t, "auto-repay.yaml")
		k := w.open(t, "")
		w.advance(t, 15*time.Second)
		r, _, _ := k.runners.use(k.Keeper, k.policyNamed(t, "auto-repay"))
		if err := r.tick(t.Context(), runInfo{Policy: "auto-repay", ID: "status-run", Tick: time.Now()}); err != nil {
			t.Fatalf("run: %v", err)
		}
		acts := k.actionsOf(t, "auto-repay")
		if len(acts) != 1 || len(acts[0].Attempts) != 1 || len(acts[0].Attempts[0].Signatures) == 0 {
			t.Fatalf("journal: %+v, want one landed action", acts)
		}
		sig := acts[0].Attempts[0].Signatures[0].Signature
		b, err := json.Marshal(k.status())
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Policies []struct {
				LastRun struct {
					Transactions []statusTx `json:"transactions"`
				} `json:"last_run"`
			} `json:"policies"`
		}
		if err := json.Unmarshal(b, &doc); err != nil || len(doc.Policies) != 1 {
			t.Fatalf("/status %s: %v", b, err)
		}
		txs := doc.Policies[0].LastRun.Transactions
		if len(txs) != 1 || txs[0].Outcome != "landed" || txs[0].Signatures[0] != sig || len(txs[0].Links) != 1 ||
			!strings.HasPrefix(txs[0].Links[0], "https://explorer.solana.com/tx/"+sig+"?cluster=custom&customUrl=") {
			t.Errorf("/status last run transactions %+v, want the repay's signature %s with its link", txs, sig)
		}
	})
}
