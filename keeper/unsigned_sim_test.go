package keeper

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/keeper-project/keeper/keeper/journal"
)

// walletWatch sees every transaction keeper hands the simulated RPC node
// and Jito engine. A transaction given to a simulation must carry no
// signature of the wallet's (keeper simulates before it signs), and one
// sent with the wallet's signature must already be in the journal: nothing
// keeper signed reaches anyone before its signature is durable.
type walletWatch struct {
	wallet  solana.PublicKey
	journal *journal.Journal

	mu        sync.Mutex
	simulated int      // transactions given to simulations
	sent      int      // transactions sent with the wallet's signature
	problems  []string // what broke the rule
}

// before is a simNet hook.
func (ww *walletWatch) before(c netCall, body []byte) {
	if c.Host != simRPCHost && c.Host != simJitoHost {
		return
	}
	simulate := strings.HasPrefix(c.Method, "simulate")
	for _, raw := range requestTransactions(c.Method, body) {
		tx, err := solana.TransactionFromBytes(raw)
		if err != nil {
			continue // the node refuses it; nothing can land
		}
		slot := ww.slotOf(tx)
		if slot < 0 {
			continue
		}
		signed := !tx.Signatures[slot].IsZero()
		switch {
		case simulate && signed:
			ww.problem("%s was given a transaction signed by the wallet (%s)", c.Method, tx.Signatures[0])
		case simulate:
			ww.count(&ww.simulated)
		case signed && !ww.journaled(tx.Signatures[0]):
			ww.problem("%s was given %s before its signature was journaled", c.Method, tx.Signatures[0])
		case signed:
			ww.count(&ww.sent)
		}
	}
}

// slotOf returns the wallet's signature slot in tx, or -1.
func (ww *walletWatch) slotOf(tx *solana.Transaction) int {
	for i := range int(tx.Message.Header.NumRequiredSignatures) {
		if i < len(tx.Message.AccountKeys) && tx.Message.AccountKeys[i].Equals(ww.wallet) {
			return i
		}
	}
	return -1
}

// journaled reports whether an unsettled action holds sig among its
// attempts' signatures or tips.
func (ww *walletWatch) journaled(sig solana.Signature) bool {
	acts, err := ww.journal.Pending(context.Background())
	if err != nil {
		return false
	}
	for _, a := range acts {
		for _, at := range a.Attempts {
			for _, s := range at.Signatures {
				if s.Signature == sig.String() {
					return true
				}
			}
			for _, tip := range at.Tips {
				if tip.Signature == sig.String() {
					return true
				}
			}
		}
	}
	return false
}

func (ww *walletWatch) problem(format string, args ...any) {
	ww.mu.Lock()
	defer ww.mu.Unlock()
	ww.problems = append(ww.problems, fmt.Sprintf(format, args...))
}

func (ww *walletWatch) count(n *int) {
	ww.mu.Lock()
	defer ww.mu.Unlock()
	*n++
}

// requestTransactions decodes the wire transactions of a JSON-RPC request
// that carries any: simulateTransaction and sendTransaction take one,
// simulateBundle and sendBundle several, all base64 as keeper sends them.
func requestTransactions(method string, body []byte) [][]byte {
	var req struct {
		Params []json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Params) == 0 {
		return nil
	}
	var encoded []string
	switch method {
	case "simulateTransaction", "sendTransaction":
		var one string
		_ = json.Unmarshal(req.Params[0], &one)
		encoded = []string{one}
	case "simulateBundle":
		var p struct {
			EncodedTransactions []string `json:"encodedTransactions"`
		}
		_ = json.Unmarshal(req.Params[0], &p)
		encoded = p.EncodedTransactions
	case "sendBundle":
		_ = json.Unmarshal(req.Params[0], &encoded)
	}
	var out [][]byte
	for _, e := range encoded {
		if raw, err := base64.StdEncoding.DecodeString(e); err == nil {
			out = append(out, raw)
		}
	}
	return out
}

// TestNothingSignedLeavesBeforeItIsJournaled runs each example policy kind
// against the simulator, whose RPC node and Jito engine see every request:
// simulations get transactions unsigned by the wallet, and every
// transaction signed by the wallet that reaches the network is journaled
// first.
func TestNothingSignedLeavesBeforeItIsJournaled(t *testing.T) {
	cases := []struct {
		file string
		wait time.Duration
	}{
		{"auto-repay.yaml", 15 * time.Second},
		{"rebalance.yaml", 25 * time.Second},
		{"claim-fees.yaml", 30 * time.Second},
		{"claim-withdrawals.yaml", 25 * time.Second},
		{"vault-upkeep.yaml", 10 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := newSimWorld(t, simOptions{})
				w.usePolicies(t, tc.file)
				k := w.open(t, "")
				ww := &walletWatch{wallet: w.wallet(), journal: k.journal}
				w.net.before = ww.before
				w.advance(t, tc.wait)
				if err := k.RunOnce(t.Context()); err != nil {
					t.Fatalf("RunOnce: %v", err)
				}
				ww.mu.Lock()
				defer ww.mu.Unlock()
				for _, p := range ww.problems {
					t.Error(p)
				}
				if ww.simulated == 0 || ww.sent == 0 || len(w.landed.paidBy(w.wallet())) == 0 {
					t.Errorf("simulated %d, sent %d signed, landed %d: want an action simulated, sent and landed",
						ww.simulated, ww.sent, len(w.landed.paidBy(w.wallet())))
				}
			})
		})
	}
}
