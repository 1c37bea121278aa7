package chainsim

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/mr-tron/base58"
)

// inflight is getInflightBundleStatuses' result as a client decodes it.
type inflight struct {
	Context struct{ Slot uint64 } `json:"context"`
	Value   []struct {
		BundleID   string  `json:"bundle_id"`
		Status     string  `json:"status"`
		LandedSlot *uint64 `json:"landed_slot"`
	} `json:"value"`
}

// bundleStatuses is getBundleStatuses' result as a client decodes it.
type bundleStatuses struct {
	Value []*struct {
		BundleID           string         `json:"bundle_id"`
		Transactions       []string       `json:"transactions"`
		Slot               uint64         `json:"slot"`
		ConfirmationStatus string         `json:"confirmation_status"`
		Err                map[string]any `json:"err"`
	} `json:"value"`
}

// bundleFixture has alice funded; bob and carol are empty.
type bundleFixture struct {
	c          *Chain
	clk        *ManualClock
	jc         jsonrpc.RPCClient
	alice, bob solana.PrivateKey
	carol, tip solana.PublicKey
}

func newBundleFixture(t *testing.T) *bundleFixture {
	t.Helper()
	c, clk := newChain(t, Options{})
	f := &bundleFixture{c: c, clk: clk, jc: jitoClient(t, c), alice: newKey("alice"), bob: newKey("bob"), carol: newKey("carol").PublicKey()}
	mustFund(t, c, f.alice.PublicKey(), 10_000_000)
	var tips []solana.PublicKey
	if err := f.jc.CallForInto(context.Background(), &tips, "getTipAccounts", []any{}); err != nil || len(tips) != 8 {
		t.Fatalf("getTipAccounts = %v, %v", tips, err)
	}
	f.tip = tips[3]
	return f
}

// send sends a bundle and returns its id.
func (f *bundleFixture) send(t *testing.T, txs []*solana.Transaction, base64Enc bool) (string, error) {
	t.Helper()
	enc := make([]string, len(txs))
	for i, tx := range txs {
		if base64Enc {
			enc[i] = base64.StdEncoding.EncodeToString(raw(t, tx))
		} else {
			enc[i] = base58.Encode(raw(t, tx))
		}
	}
	params := []any{enc}
	if base64Enc {
		params = append(params, map[string]string{"encoding": "base64"})
	}
	var id string
	err := f.jc.CallForInto(context.Background(), &id, "sendBundle", params)
	return id, err
}

// inflight returns the in-flight status of id.
func (f *bundleFixture) inflight(t *testing.T, id string) (string, *uint64) {
	t.Helper()
	var out inflight
	if err := f.jc.CallForInto(context.Background(), &out, "getInflightBundleStatuses", []any{[]string{id}}); err != nil || len(out.Value) != 1 {
		t.Fatalf("getInflightBundleStatuses: %+v, %v", out, err)
	}
	return out.Value[0].Status, out.Value[0].LandedSlot
}

func TestBundles(t *testing.T) {
	tests := []struct {
		name       string
		txs        func(f *bundleFixture, bh solana.Hash) []*solana.Transaction
		base64     bool
		wantLanded bool
		bob, carol uint64
	}{
		{"ordered and atomic, tip paid, base64", func(f *bundleFixture, bh solana.Hash) []*solana.Transaction {
			return []*solana.Transaction{
				transfer(t, f.alice, f.bob.PublicKey(), 1_000_000, bh),
				signTx(t, []solana.Instruction{
					system.NewTransferInstruction(400_000, f.bob.PublicKey(), f.carol).Build(),
					system.NewTransferInstruction(1000, f.bob.PublicKey(), f.tip).Build(),
				}, bh, f.bob),
			}
		}, true, true, 1_000_000 - 400_000 - 1000 - 5000, 400_000},
		{"base58 by default", func(f *bundleFixture, bh solana.Hash) []*solana.Transaction {
			return []*solana.Transaction{signTx(t, []solana.Instruction{
				system.NewTransferInstruction(50_000, f.alice.PublicKey(), f.carol).Build(),
				system.NewTransferInstruction(2000, f.alice.PublicKey(), f.tip).Build(),
			}, bh, f.alice)}
		}, false, true, 0, 50_000},
		{"tip below the minimum", func(f *bundleFixture, bh solana.Hash) []*solana.Transaction {
			return []*solana.Transaction{signTx(t, []solana.Instruction{
				system.NewTransferInstruction(50_000, f.alice.PublicKey(), f.carol).Build(),
				system.NewTransferInstruction(999, f.alice.PublicKey(), f.tip).Build(),
			}, bh, f.alice)}
		}, true, false, 0, 0},
		{"a failing transaction lands nothing", func(f *bundleFixture, bh solana.Hash) []*solana.Transaction {
			return []*solana.Transaction{
				transfer(t, f.alice, f.bob.PublicKey(), 1_000_000, bh),
				transfer(t, f.alice, f.tip, 5000, bh),
				transfer(t, f.bob, f.carol, 2_000_000, bh),
			}
		}, true, false, 0, 0},
		{"out of order", func(f *bundleFixture, bh solana.Hash) []*solana.Transaction {
			return []*solana.Transaction{
				transfer(t, f.bob, f.carol, 400_000, bh),
				transfer(t, f.alice, f.bob.PublicKey(), 1_000_000, bh),
				transfer(t, f.alice, f.tip, 5000, bh),
			}
		}, true, false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newBundleFixture(t)
			txs := tt.txs(f, latest(f.c))
			sent := f.clk.Now()
			id, err := f.send(t, txs, tt.base64)
			sigs := make([]solana.Signature, len(txs))
			for i, tx := range txs {
				sigs[i] = tx.Signatures[0]
			}
			if err != nil || id != BundleID(sigs) {
				t.Fatalf("sendBundle = %q, %v; want %q", id, err, BundleID(sigs))
			}
			if st, _ := f.inflight(t, id); st != "Pending" {
				t.Fatalf("before the next slot: %s, want Pending", st)
			}
			advanceSlots(f.clk, 1)
			st, slot := f.inflight(t, id)
			if tt.wantLanded != (st == "Landed") || !tt.wantLanded && st != "Failed" {
				t.Fatalf("after the next slot: %s, want landed %v", st, tt.wantLanded)
			}
			if tt.wantLanded && (slot == nil || *slot != 1) {
				t.Fatalf("landed_slot = %v, want 1", slot)
			}
			for _, sig := range sigs {
				landed, ok := f.c.Ledger.Transaction(sig)
				if ok != tt.wantLanded || ok && (landed.BundleID != id || landed.Slot != 1) {
					t.Fatalf("transaction %s landed %v (%+v), want %v", sig, ok, landed, tt.wantLanded)
				}
				// Sent is the engine's acceptance; At the slot it ran in, one later.
				if ok && (!landed.Sent.Equal(sent) || !landed.At.Equal(sent.Add(SlotDuration))) {
					t.Errorf("transaction %s sent at %v, ran at %v; want %v and a slot later", sig, landed.Sent, landed.At, sent)
				}
			}
			if f.c.State.Balance(f.bob.PublicKey()) != tt.bob || f.c.State.Balance(f.carol) != tt.carol {
				t.Fatalf("bob %d carol %d, want %d %d", f.c.State.Balance(f.bob.PublicKey()), f.c.State.Balance(f.carol), tt.bob, tt.carol)
			}
		})
	}
}

func TestBundleStatusesAndLimits(t *testing.T) {
	f := newBundleFixture(t)
	ctx := context.Background()
	bh := latest(f.c)
	tx := signTx(t, []solana.Instruction{system.NewTransferInstruction(5000, f.alice.PublicKey(), f.tip).Build()}, bh, f.alice)
	id, err := f.send(t, []*solana.Transaction{tx}, true)
	if err != nil {
		t.Fatalf("sendBundle: %v", err)
	}
	var out bundleStatuses
	if err := f.jc.CallForInto(ctx, &out, "getBundleStatuses", []any{[]string{id}}); err != nil || out.Value[0] != nil {
		t.Fatalf("pending bundle in getBundleStatuses: %+v, %v", out.Value, err)
	}
	advanceSlots(f.clk, 2)
	if err := f.jc.CallForInto(ctx, &out, "getBundleStatuses", []any{[]string{id, "beef"}}); err != nil {
		t.Fatalf("getBundleStatuses: %v", err)
	}
	got := out.Value[0]
	if got == nil || got.BundleID != id || got.Slot != 1 || got.ConfirmationStatus != "confirmed" || len(got.Transactions) != 1 ||
		got.Transactions[0] != tx.Signatures[0].String() || out.Value[1] != nil {
		t.Fatalf("getBundleStatuses = %+v", out.Value)
	}
	if again, err := f.send(t, []*solana.Transaction{tx}, true); err != nil || again != id {
		t.Fatalf("resending a landed bundle = %q, %v", again, err)
	}
	if st, _ := f.inflight(t, "beef"); st != "Invalid" {
		t.Fatalf("unknown bundle = %s, want Invalid", st)
	}
	six := make([]*solana.Transaction, 6)
	for i := range six {
		six[i] = transfer(t, f.alice, f.tip, uint64(1000+i), bh)
	}
	if _, err := f.send(t, six, true); rpcErr(t, err).Code != -32602 {
		t.Fatalf("a 6-transaction bundle was accepted")
	}
	bad := transfer(t, f.alice, f.tip, 1000, bh)
	bad.Signatures[0][1] ^= 1
	if _, err := f.send(t, []*solana.Transaction{bad}, true); rpcErr(t, err).Code != -32602 {
		t.Fatalf("a badly signed bundle was accepted")
	}
}

// TestJitoRateLimit: with a limit of one request per second, a client IP's
// second request within the second is answered 429 with Retry-After 1, as
// Jito's engine answers; another IP is not held back, and a second later
// the first may ask again. Without the option nothing is limited.
func TestJitoRateLimit(t *testing.T) {
	ask := func(h http.Handler, ip string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/bundles", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"getTipAccounts","params":[]}`))
		r.RemoteAddr = ip + ":40000"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	synctest.Test(t, func(t *testing.T) {
		limited, _ := newChain(t, Options{JitoRateLimit: 1})
		h := limited.Jito().Handler()
		if w := ask(h, "10.0.0.1"); w.Code != http.StatusOK {
			t.Fatalf("first request: %d %s", w.Code, w.Body)
		}
		w := ask(h, "10.0.0.1")
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
			t.Errorf("second request within the second: %d, Retry-After %q; want 429 and 1", w.Code, w.Header().Get("Retry-After"))
		}
		if w := ask(h, "10.0.0.2"); w.Code != http.StatusOK {
			t.Errorf("another client: %d", w.Code)
		}
		time.Sleep(time.Second)
		if w := ask(h, "10.0.0.1"); w.Code != http.StatusOK {
			t.Errorf("a second later: %d", w.Code)
		}
		free, _ := newChain(t, Options{})
		for range 3 {
			if w := ask(free.Jito().Handler(), "10.0.0.1"); w.Code != http.StatusOK {
				t.Errorf("no limit: %d", w.Code)
			}
		}
	})
	if _, err := New(Options{JitoRateLimit: -1}); err == nil {
		t.Error("a negative JitoRateLimit was accepted")
	}
}
