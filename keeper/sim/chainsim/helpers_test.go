package chainsim

import (
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// epoch is the genesis of every test chain.
var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// newKey returns a deterministic keypair named by seed.
func newKey(seed string) solana.PrivateKey {
	s := sha256.Sum256([]byte(seed))
	return solana.PrivateKey(ed25519.NewKeyFromSeed(s[:]))
}

// newChain returns a chain on a manual clock at epoch.
func newChain(t testing.TB, opts Options) (*Chain, *ManualClock) {
	t.Helper()
	clk := NewManualClock(epoch)
	opts.Clock = clk
	c, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, clk
}

// advanceSlots moves the clock forward n slots.
func advanceSlots(clk *ManualClock, n int) { clk.Advance(time.Duration(n) * SlotDuration) }

// serve starts h on a loopback test server closed at the end of the test
// and returns its URL and a client whose idle connections are closed too.
func serve(t testing.TB, h http.Handler) (string, *http.Client) {
	t.Helper()
	srv := httptest.NewServer(h)
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(func() {
		hc.CloseIdleConnections()
		srv.Close()
	})
	return srv.URL, hc
}

// rpcClient returns a solana-go client of c's RPC service.
func rpcClient(t testing.TB, c *Chain) *rpc.Client {
	t.Helper()
	url, hc := serve(t, c.RPC().Handler())
	return rpc.NewWithCustomRPCClient(jsonrpc.NewClientWithOpts(url, &jsonrpc.RPCClientOpts{HTTPClient: hc}))
}

// jitoClient returns a JSON-RPC client of c's block engine.
func jitoClient(t testing.TB, c *Chain) jsonrpc.RPCClient {
	t.Helper()
	url, hc := serve(t, c.Jito().Handler())
	return jsonrpc.NewClientWithOpts(url+"/api/v1/bundles", &jsonrpc.RPCClientOpts{HTTPClient: hc})
}

// signTx builds a transaction of ixs paid by payer and signed by signers.
func signTx(t testing.TB, ixs []solana.Instruction, bh solana.Hash, payer solana.PrivateKey, signers ...solana.PrivateKey) *solana.Transaction {
	t.Helper()
	tx, err := solana.NewTransaction(ixs, bh, solana.TransactionPayer(payer.PublicKey()))
	if err != nil {
		t.Fatalf("NewTransaction: %v", err)
	}
	keys := append([]solana.PrivateKey{payer}, signers...)
	if _, err := tx.Sign(func(k solana.PublicKey) *solana.PrivateKey {
		for i := range keys {
			if keys[i].PublicKey() == k {
				return &keys[i]
			}
		}
		return nil
	}); err != nil {
		t.Fatalf("Sign: %v", err)
	}
	return tx
}

// raw returns the wire bytes of tx.
func raw(t testing.TB, tx *solana.Transaction) []byte {
	t.Helper()
	b, err := tx.MarshalBinary()
	if err != nil {
		t.Fatalf("MarshalBinary: %v", err)
	}
	return b
}

// transfer returns a signed System transfer.
func transfer(t testing.TB, from solana.PrivateKey, to solana.PublicKey, lamports uint64, bh solana.Hash) *solana.Transaction {
	t.Helper()
	ix := system.NewTransferInstruction(lamports, from.PublicKey(), to).Build()
	return signTx(t, []solana.Instruction{ix}, bh, from)
}

// latest returns the processed blockhash of c.
func latest(c *Chain) solana.Hash {
	h, _ := c.Ledger.LatestBlockhash(rpc.CommitmentProcessed)
	return h
}

// mustFund funds wallet or fails the test.
func mustFund(t testing.TB, c *Chain, wallet solana.PublicKey, lamports uint64) {
	t.Helper()
	if err := c.Setup.Fund(wallet, lamports); err != nil {
		t.Fatalf("Fund: %v", err)
	}
}

// rpcErr returns the JSON-RPC error in err, failing the test if there is none.
func rpcErr(t testing.TB, err error) *jsonrpc.RPCError {
	t.Helper()
	var rerr *jsonrpc.RPCError
	if !errors.As(err, &rerr) {
		t.Fatalf("error %v is not a JSON-RPC error", err)
	}
	return rerr
}

// dataErr returns the "err" member of a -32002 error's data.
func dataErr(t testing.TB, rerr *jsonrpc.RPCError) any {
	t.Helper()
	m, ok := rerr.Data.(map[string]any)
	if !ok {
		t.Fatalf("error data %#v is not an object", rerr.Data)
	}
	return m["err"]
}
