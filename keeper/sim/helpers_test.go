package sim

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	bin "github.com/gagliardetto/binary"
	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"
	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/txbuild"
)

// testStart is the manual clock's start in tests.
var testStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testKey is the operator's key in tests.
var testKey = ed25519.NewKeyFromSeed(ids.Sha256Bytes("keeper/sim test wallet"))

// testWallet is the operator's wallet in tests.
func testWallet() solana.PublicKey { return ids.PublicKeyOf(testKey) }

// env is a running simulator with clients.
type env struct {
	sim    *Sim
	clock  *chainsim.ManualClock
	urls   URLs
	market *api.Client
	rpc    *rpc.Client
	ctx    context.Context
}

// newEnv starts a simulator on the default scenario (or opts.Scenario) with a manual clock.
func newEnv(t *testing.T, opts Options) *env {
	t.Helper()
	clock := chainsim.NewManualClock(testStart)
	opts.Clock = clock
	if opts.Wallet.IsZero() {
		opts.Wallet = testWallet()
	}
	if opts.OnUnknownRoute == nil {
		opts.OnUnknownRoute = func(method, path string) { t.Errorf("unknown market route %s %s", method, path) }
	}
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	urls, err := s.Start(ctx, Addrs{})
	if err != nil {
		cancel()
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := s.Wait(); err != nil {
			t.Errorf("Wait: %v", err)
		}
	})
	mc, err := api.New(api.Options{BaseURL: urls.Market, Wallet: opts.Wallet.String(),
		Retry: api.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatalf("api.New: %v", err)
	}
	return &env{sim: s, clock: clock, urls: urls, market: mc, rpc: rpc.New(urls.RPC), ctx: ctx}
}

// advance moves the sim clock and runs due events.
func (e *env) advance(t *testing.T, d time.Duration) {
	t.Helper()
	if err := e.sim.Events().Advance(d); err != nil {
		t.Fatalf("Advance: %v", err)
	}
}

// signAPI signs an API transaction object with keys over the exact message bytes, keeping the
// signatures the API made, and returns the wire transaction.
func signAPI(t *testing.T, tx market.Transaction, keys ...ed25519.PrivateKey) []byte {
	t.Helper()
	msg, err := base64.StdEncoding.DecodeString(tx.Message)
	if err != nil {
		t.Fatalf("message: %v", err)
	}
	given := map[string][]byte{}
	for _, s := range tx.Signatures {
		b, err := base64.StdEncoding.DecodeString(s.Signature)
		if err != nil {
			t.Fatalf("signature: %v", err)
		}
		given[s.PublicKey] = b
	}
	return assemble(t, msg, given, keys...)
}

// signWire signs a full wire transaction (E10) in the keys' empty slots.
func signWire(t *testing.T, b64 string, keys ...ed25519.PrivateKey) []byte {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("wire: %v", err)
	}
	n := int(raw[0])
	msg := raw[1+64*n:]
	signers := signersOf(t, msg)
	given := map[string][]byte{}
	for i := range n {
		sig := raw[1+64*i : 1+64*(i+1)]
		if !solana.SignatureFromBytes(sig).IsZero() {
			given[signers[i].String()] = sig
		}
	}
	return assemble(t, msg, given, keys...)
}

// signersOf returns the required signers of a message.
func signersOf(t *testing.T, msg []byte) []solana.PublicKey {
	t.Helper()
	var m solana.Message
	if err := m.UnmarshalWithDecoder(bin.NewBinDecoder(msg)); err != nil {
		t.Fatalf("decode message: %v", err)
	}
	return m.AccountKeys[:m.Header.NumRequiredSignatures]
}

// assemble builds shortvec(n) || signatures || message with each key's signature in its slot.
func assemble(t *testing.T, msg []byte, given map[string][]byte, keys ...ed25519.PrivateKey) []byte {
	t.Helper()
	for _, k := range keys {
		given[ids.PublicKeyOf(k).String()] = ed25519.Sign(k, msg)
	}
	signers := signersOf(t, msg)
	out := txbuild.AppendShortVec(nil, len(signers))
	for _, s := range signers {
		switch {
		case given[s.String()] != nil:
			out = append(out, given[s.String()]...)
		default:
			out = append(out, make([]byte, 64)...)
		}
	}
	return append(out, msg...)
}

// send submits a wire transaction with preflight at confirmed and fails the test on error.
func (e *env) send(t *testing.T, wire []byte) solana.Signature {
	t.Helper()
	sig, err := e.rpc.SendRawTransactionWithOpts(e.ctx, wire, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed})
	if err != nil {
		t.Fatalf("send: %v", describeRPCError(err))
	}
	return sig
}

// describeRPCError formats an RPC error compactly.
func describeRPCError(err error) string {
	return fmt.Sprintf("%.600v", err)
}

// landed checks that a signature landed without error.
func (e *env) landed(t *testing.T, sig solana.Signature) {
	t.Helper()
	st, err := e.rpc.GetSignatureStatuses(e.ctx, true, sig)
	if err != nil {
		t.Fatalf("statuses: %v", err)
	}
	if st.Value[0] == nil {
		t.Fatalf("transaction %s did not land", sig)
	}
	if st.Value[0].Err != nil {
		l, _ := e.sim.Chain().Ledger.Transaction(sig)
		t.Fatalf("transaction %s failed: %v\nlogs: %v", sig, st.Value[0].Err, l.Logs)
	}
}

// addr returns the address of a named thing of the test's scenario.
func (e *env) addr(t *testing.T, kind, name string) solana.PublicKey {
	t.Helper()
	k, ok := e.sim.Accounts().Address(kind, name)
	if !ok {
		t.Fatalf("no %s called %q", kind, name)
	}
	return k
}

// tipTx returns a transaction of the wallet tipping a Jito tip account.
func (e *env) tipTx(t *testing.T, lamports uint64) []byte {
	t.Helper()
	bh, _ := e.sim.Chain().Ledger.LatestBlockhash(rpc.CommitmentConfirmed)
	tx, err := solana.NewTransaction([]solana.Instruction{
		system.NewTransferInstruction(lamports, testWallet(), e.sim.Chain().Bundles.TipAccounts()[0]).Build()}, bh,
		solana.TransactionPayer(testWallet()))
	if err != nil {
		t.Fatal(err)
	}
	pk := solana.PrivateKey(testKey)
	if _, err := tx.Sign(func(solana.PublicKey) *solana.PrivateKey { return &pk }); err != nil {
		t.Fatal(err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// sendBundle sends a bundle to the block engine in base64 and returns its id.
func (e *env) sendBundle(t *testing.T, txs [][]byte) string {
	t.Helper()
	enc := make([]string, len(txs))
	for i, tx := range txs {
		enc[i] = base64.StdEncoding.EncodeToString(tx)
	}
	var id string
	cl := jsonrpc.NewClient(e.urls.Jito + "/api/v1/bundles")
	if err := cl.CallForInto(e.ctx, &id, "sendBundle", []any{enc, map[string]string{"encoding": "base64"}}); err != nil {
		t.Fatalf("sendBundle: %v", describeRPCError(err))
	}
	return id
}

// asClient returns v, a record of the simulator's own wire types, as keeper's market client reads
// it: encoded by the simulator's rules and decoded by the client's.
func asClient[T any](tb testing.TB, v any) T {
	tb.Helper()
	var out T
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("encode %T: %v", v, err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		tb.Fatalf("decode %T as %T: %v", v, out, err)
	}
	return out
}
