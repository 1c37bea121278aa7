package chainsim

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// TestSimulateBundleAccumulatesState shows transactions simulated on the
// state their predecessors left (fees included), stopping at the first
// failure, and the chain left unchanged.
func TestSimulateBundleAccumulatesState(t *testing.T) {
	c, clk := newChain(t, Options{})
	alice, bob, carol := newKey("alice"), newKey("bob"), newKey("carol").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000_000)
	advanceSlots(clk, 2)
	bh, _ := c.Ledger.LatestBlockhash(rpc.CommitmentConfirmed) // simulateBundle's default bank
	// bob has nothing until alice's transfer: his own transfer and fee
	// depend on it.
	tx1 := transfer(t, alice, bob.PublicKey(), 100_000_000, bh)
	tx2 := transfer(t, bob, carol, 50_000_000, bh)
	tx3 := transfer(t, bob, carol, 60_000_000, bh) // more than bob has left
	if alone, _ := c.Simulate(raw(t, tx2), SimulateOptions{SigVerify: true}); alone.Err == nil {
		t.Fatal("bob's transfer alone succeeds; the test needs a dependent transaction")
	}
	watch := []solana.PublicKey{alice.PublicKey(), bob.PublicKey(), carol}
	res, err := c.SimulateBundle([][]byte{raw(t, tx1), raw(t, tx2), raw(t, tx3)},
		BundleSimOptions{Pre: [][]solana.PublicKey{watch, watch, watch}, Post: [][]solana.PublicKey{watch, watch, watch}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 2 || len(res.Results) != 3 || res.Results[0].Err != nil || res.Results[1].Err != nil || res.Results[2].Err == nil {
		t.Fatalf("failed %d, results %+v; want the third to fail after two successes", res.Failed, res.Results)
	}
	post1, post2 := res.Results[0].Post, res.Results[1].Post
	if got := post1[0].Lamports; got != 1_000_000_000-100_000_000-5000 {
		t.Errorf("alice after tx 1 = %d, want the transfer and the fee gone", got)
	}
	if got := res.Results[1].Pre[1].Lamports; got != 100_000_000 {
		t.Errorf("bob before tx 2 = %d, want what tx 1 left him", got)
	}
	if got := post2[1].Lamports; got != 100_000_000-50_000_000-5000 {
		t.Errorf("bob after tx 2 = %d", got)
	}
	if res.Results[2].Post != nil {
		t.Error("a failed transaction returned post-state")
	}
	if c.State.Balance(bob.PublicKey()) != 0 || c.State.Balance(carol) != 0 || c.State.Balance(alice.PublicKey()) != 1_000_000_000 {
		t.Fatal("the simulation changed the chain")
	}
}

func TestSimulateBundleRejects(t *testing.T) {
	c, clk := newChain(t, Options{})
	alice := newKey("alice")
	mustFund(t, c, alice.PublicKey(), 1_000_000_000)
	advanceSlots(clk, 1)
	tx := raw(t, transfer(t, alice, newKey("bob").PublicKey(), 1, latest(c)))
	many := make([][]byte, MaxSimulateBundleTransactions+1)
	for i := range many {
		many[i] = raw(t, transfer(t, alice, newKey("bob").PublicKey(), uint64(i+1), latest(c)))
	}
	for name, tc := range map[string]struct {
		raws [][]byte
		opts BundleSimOptions
	}{
		"empty":                      {nil, BundleSimOptions{}},
		"more than 20":               {many, BundleSimOptions{}},
		"duplicate":                  {[][]byte{tx, tx}, BundleSimOptions{}},
		"configs of another length":  {[][]byte{tx}, BundleSimOptions{Pre: [][]solana.PublicKey{nil, nil}}},
		"replace blockhash, sigs on": {[][]byte{tx}, BundleSimOptions{ReplaceRecentBlockhash: true}},
		"garbled transaction":        {[][]byte{{1, 2, 3}}, BundleSimOptions{}},
	} {
		if _, err := c.SimulateBundle(tc.raws, tc.opts); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestSimulateBundleRPC checks the wire form of simulateBundle.
func TestSimulateBundleRPC(t *testing.T) {
	c, clk := newChain(t, Options{})
	alice, bob := newKey("alice"), newKey("bob")
	mustFund(t, c, alice.PublicKey(), 1_000_000_000)
	advanceSlots(clk, 2)
	bh, _ := c.Ledger.LatestBlockhash(rpc.CommitmentConfirmed) // simulateBundle's default bank
	txs := []string{
		base64.StdEncoding.EncodeToString(raw(t, transfer(t, alice, bob.PublicKey(), 100_000_000, bh))),
		base64.StdEncoding.EncodeToString(raw(t, transfer(t, bob, alice.PublicKey(), 200_000_000, bh))),
	}
	cl := rpcClient(t, c)
	cfg := map[string]any{
		"preExecutionAccountsConfigs":  []any{nil, nil},
		"postExecutionAccountsConfigs": []any{map[string]any{"addresses": []string{bob.PublicKey().String()}, "encoding": "base64"}, nil},
		"transactionEncoding":          "base64",
	}
	var out struct {
		Value struct {
			Summary            json.RawMessage `json:"summary"`
			TransactionResults []struct {
				Err                   any `json:"err"`
				PostExecutionAccounts []struct {
					Lamports uint64 `json:"lamports"`
				} `json:"postExecutionAccounts"`
			} `json:"transactionResults"`
		} `json:"value"`
	}
	if err := cl.RPCCallForInto(context.Background(), &out, "simulateBundle", []any{map[string]any{"encodedTransactions": txs}, cfg}); err != nil {
		t.Fatal(err)
	}
	var summary struct {
		Failed struct {
			TxSignature string `json:"tx_signature"`
		} `json:"failed"`
	}
	if err := json.Unmarshal(out.Value.Summary, &summary); err != nil || summary.Failed.TxSignature == "" {
		t.Errorf("summary %s, want failed with the second signature", out.Value.Summary)
	}
	r := out.Value.TransactionResults
	if len(r) != 2 || r[0].Err != nil || r[1].Err == nil || len(r[0].PostExecutionAccounts) != 1 || r[0].PostExecutionAccounts[0].Lamports != 100_000_000 {
		t.Errorf("results %+v", r)
	}
	bad := map[string]any{"preExecutionAccountsConfigs": []any{nil}, "postExecutionAccountsConfigs": []any{nil, nil}}
	if err := cl.RPCCallForInto(context.Background(), &out, "simulateBundle", []any{map[string]any{"encodedTransactions": txs}, bad}); err == nil {
		t.Error("configs of the wrong length accepted")
	}
}

// TestSimulateBundleUnsigned: transactions of one fee payer with its slot
// all zero (so their first signatures are equal) are distinct to
// simulateBundle, which tells duplicates apart by message hash as
// Jito-Solana does; with skipSigVerify they simulate as the signed ones,
// without it they are refused.
func TestSimulateBundleUnsigned(t *testing.T) {
	c, clk := newChain(t, Options{})
	alice, bob := newKey("alice"), newKey("bob").PublicKey()
	mustFund(t, c, alice.PublicKey(), 1_000_000_000)
	advanceSlots(clk, 2)
	bh, _ := c.Ledger.LatestBlockhash(rpc.CommitmentConfirmed)
	signed := [][]byte{raw(t, transfer(t, alice, bob, 1, bh)), raw(t, transfer(t, alice, bob, 2, bh))}
	unsigned := make([][]byte, len(signed))
	for i, s := range signed {
		unsigned[i] = append([]byte{}, s...)
		clear(unsigned[i][1:65])
	}
	watch := [][]solana.PublicKey{{alice.PublicKey(), bob}, {alice.PublicKey(), bob}}
	opts := BundleSimOptions{Pre: watch, Post: watch}
	if _, err := c.SimulateBundle(unsigned, opts); err == nil {
		t.Fatal("unsigned transactions simulated with signature verification")
	}
	want, err := c.SimulateBundle(signed, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.SkipSigVerify = true
	got, err := c.SimulateBundle(unsigned, opts)
	if err != nil || !reflect.DeepEqual(got, want) || got.Failed != -1 {
		t.Fatalf("unsigned: %+v, %v\nwant %+v", got, err, want)
	}
	if _, err := c.SimulateBundle([][]byte{unsigned[0], signed[0]}, opts); err == nil {
		t.Error("a transaction and its unsigned copy: accepted, want a duplicate")
	}
}
