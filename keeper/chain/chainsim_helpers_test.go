package chain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/keeper-project/keeper/internal/pipenet"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/system"
	"github.com/gagliardetto/solana-go/programs/token"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/jsonrpc"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/chainsim/svm"
)

// These end-to-end tests run keeper/chain against keeper/sim/chainsim
// inside testing/synctest bubbles. chainsim's clock is chainsim.RealClock,
// which inside a bubble reads the bubble's fake time, so the chain's slots,
// the client's poll and rebroadcast tickers, request timeouts, the rate
// limiters and the failover back-off all move on one virtual clock that
// advances only when every goroutine of the test is idle. Nothing waits
// for real time and the interleaving of client and chain is the same on
// every run. The chainsim handlers are served by httptest servers whose
// listeners are in-memory pipes: goroutines blocked on a real socket would
// never count as idle, and the bubble's clock would stand still.

// apiKey is part of every RPC URL and of the Jito auth; it must never be
// printed.
const (
	apiKey   = "SIMSECRETAPIKEY42"
	jitoAuth = "jito-auth-" + apiKey
)

// Client timing used by the tests (virtual time): a poll per slot, a
// rebroadcast every two and a half slots.
const (
	pollInterval   = chainsim.SlotDuration
	rebroadcast    = time.Second
	blockhashGrace = 4 * time.Second
	requestTimeout = 2 * time.Second
)

// serve starts an httptest server of h on the pipe network under host and
// closes it when the test ends. It returns the server's base URL.
func serve(t *testing.T, n *pipenet.Network, host string, h http.Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	_ = srv.Listener.Close() // the loopback socket it opened is not used
	srv.Listener = n.Listen(host + ":80")
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// rpcCall is one JSON-RPC request a recorder saw.
type rpcCall struct {
	Method string
	Params []json.RawMessage
	Auth   string // the x-jito-auth header
}

// recorder wraps a handler and keeps every JSON-RPC request in order;
// rewrite, if set, may change a request before it is served.
type recorder struct {
	next    http.Handler
	rewrite func(*rpcCall)

	mu    sync.Mutex
	calls []rpcCall
}

// ServeHTTP implements http.Handler.
func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, "recorder: "+err.Error(), http.StatusBadRequest)
		return
	}
	var msg struct {
		JSONRPC string            `json:"jsonrpc"`
		ID      json.RawMessage   `json:"id"`
		Method  string            `json:"method"`
		Params  []json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &msg) == nil {
		c := rpcCall{Method: msg.Method, Params: msg.Params, Auth: req.Header.Get("x-jito-auth")}
		if r.rewrite != nil {
			r.rewrite(&c)
			msg.Params = c.Params
			if b, err := json.Marshal(msg); err == nil {
				body = b
			}
		}
		r.mu.Lock()
		r.calls = append(r.calls, c)
		r.mu.Unlock()
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	r.next.ServeHTTP(w, req)
}

// all returns a copy of the calls so far.
func (r *recorder) all() []rpcCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]rpcCall(nil), r.calls...)
}

// count returns how many calls of method were made.
func (r *recorder) count(method string) int {
	n := 0
	for _, c := range r.all() {
		if c.Method == method {
			n++
		}
	}
	return n
}

// observed is one request the client's Observe hook reported.
type observed struct {
	Method string
	Err    error
}

// observer collects the client's Observe reports.
type observer struct {
	mu   sync.Mutex
	seen []observed
}

// observe is the chain.Options.Observe hook.
func (o *observer) observe(method string, _ time.Duration, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen = append(o.seen, observed{Method: method, Err: err})
}

// errs returns the errors reported for method, in order.
func (o *observer) errs(method string) []error {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []error
	for _, s := range o.seen {
		if s.Method == method && s.Err != nil {
			out = append(out, s.Err)
		}
	}
	return out
}

// allErrs returns every error reported.
func (o *observer) allErrs() []error {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []error
	for _, s := range o.seen {
		if s.Err != nil {
			out = append(out, s.Err)
		}
	}
	return out
}

// logBuffer collects the client's log lines; safe for concurrent writes.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write implements io.Writer.
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything logged so far.
func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// envConfig adjusts an env.
type envConfig struct {
	sim     chainsim.Options     // Clock is always chainsim.RealClock
	edit    func(*chain.Options) // client options
	rewrite func(*rpcCall)       // rewrites RPC requests before chainsim sees them
}

// node is one simulated chain with its RPC and Jito services served over
// httptest on the pipe network.
type node struct {
	sim     *chainsim.Chain
	rpc     *recorder
	jito    *recorder
	rpcURL  string // with the API key
	jitoURL string
}

// startNode starts a chain on the bubble's clock and serves it as
// rpc.<name>.test and jito.<name>.test.
func startNode(t *testing.T, n *pipenet.Network, name string, opts chainsim.Options, rewrite func(*rpcCall)) *node {
	t.Helper()
	opts.Clock = chainsim.RealClock{}
	sim, err := chainsim.New(opts)
	if err != nil {
		t.Fatalf("chainsim.New: %v", err)
	}
	nd := &node{sim: sim, rpc: &recorder{next: sim.RPC().Handler(), rewrite: rewrite}, jito: &recorder{next: sim.Jito().Handler()}}
	nd.rpcURL = serve(t, n, "rpc."+name+".test", nd.rpc) + "/?api-key=" + apiKey
	nd.jitoURL = serve(t, n, "jito."+name+".test", nd.jito)
	return nd
}

// env is a simulated cluster with a chain.Client of it and a funded
// wallet. Create it inside a synctest bubble.
type env struct {
	*node
	net     *pipenet.Network
	client  *chain.Client
	obs     *observer
	logs    *logBuffer // the client's
	simLogs *logBuffer // chainsim's: why it dropped transactions and bundles
	wallet  solana.PrivateKey
}

// walletFunds is the wallet's starting balance.
const walletFunds = 10_000_000_000

// newEnv starts a chain, its RPC and Jito servers and a client; the wallet
// holds walletFunds lamports.
func newEnv(t *testing.T, cfg envConfig) *env {
	t.Helper()
	n := &pipenet.Network{}
	simLogs := &logBuffer{}
	cfg.sim.Logger = slog.New(slog.NewJSONHandler(simLogs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e := &env{node: startNode(t, n, "sim", cfg.sim, cfg.rewrite), net: n, obs: &observer{}, logs: &logBuffer{}, simLogs: simLogs, wallet: newKey(t)}
	o := e.options()
	if cfg.edit != nil {
		cfg.edit(&o)
	}
	e.client = newClient(t, o)
	e.fund(t, e.wallet.PublicKey(), walletFunds)
	return e
}

// options returns the client options the tests use by default.
func (e *env) options() chain.Options {
	return chain.Options{
		RPCURLs:             []string{e.rpcURL},
		JitoURL:             e.jitoURL,
		JitoAuth:            jitoAuth,
		RequestTimeout:      requestTimeout,
		RebroadcastInterval: rebroadcast,
		PollInterval:        pollInterval,
		BlockhashGrace:      blockhashGrace,
		HTTPClient:          e.net.Client(),
		Logger:              slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Observe:             e.obs.observe,
	}
}

// newClient returns a client closed when the test ends (before the
// servers, so that their connections are idle when they close).
func newClient(t *testing.T, o chain.Options) *chain.Client {
	t.Helper()
	c, err := chain.New(o)
	if err != nil {
		t.Fatalf("chain.New: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// fund adds lamports to key on the simulated chain.
func (nd *node) fund(t *testing.T, key solana.PublicKey, lamports uint64) {
	t.Helper()
	if err := nd.sim.Setup.Fund(key, lamports); err != nil {
		t.Fatalf("Fund: %v", err)
	}
}

// newMint creates a mint with decimals and mints amount to each holder.
func (e *env) newMint(t *testing.T, decimals uint8, amount uint64, holders ...solana.PublicKey) solana.PublicKey {
	t.Helper()
	mint := newKey(t).PublicKey()
	if err := e.sim.Setup.CreateMint(mint, decimals); err != nil {
		t.Fatalf("CreateMint: %v", err)
	}
	for _, h := range holders {
		if err := e.sim.Setup.MintTo(h, mint, amount); err != nil {
			t.Fatalf("MintTo: %v", err)
		}
	}
	return mint
}

// blockhash returns the latest blockhash as the client sees it.
func (e *env) blockhash(t *testing.T) solana.Hash {
	t.Helper()
	bh, err := e.client.Reads.LatestBlockhash(t.Context())
	if err != nil {
		t.Fatalf("LatestBlockhash: %v", err)
	}
	return bh.Hash
}

// landed returns the chain's record of a landed signature.
func (nd *node) landed(t *testing.T, sig solana.Signature) chainsim.Landed {
	t.Helper()
	l, ok := nd.sim.Ledger.Transaction(sig)
	if !ok {
		t.Fatalf("%s did not land on the simulated chain", sig)
	}
	return l
}

// notLanded fails the test if sig landed.
func (nd *node) notLanded(t *testing.T, sig solana.Signature) {
	t.Helper()
	if _, ok := nd.sim.Ledger.Transaction(sig); ok {
		t.Errorf("%s landed on the simulated chain, want never", sig)
	}
}

// noSecrets fails the test if the API key or Jito auth reached an error
// the client reported or its logs.
func (e *env) noSecrets(t *testing.T) {
	t.Helper()
	for _, err := range e.obs.allErrs() {
		if strings.Contains(err.Error(), apiKey) {
			t.Errorf("error leaks the API key: %v", err)
		}
	}
	if strings.Contains(e.logs.String(), apiKey) {
		t.Error("the client's logs leak the API key")
	}
}

// wellFormed fails the test if the client found an answer of the chain
// malformed: a wire-shape mismatch between keeper/chain and chainsim.
func (e *env) wellFormed(t *testing.T) {
	t.Helper()
	for _, err := range e.obs.allErrs() {
		if strings.Contains(err.Error(), "malformed response") {
			t.Errorf("client could not decode an answer: %v", err)
		}
	}
}

// jitoAuthSent fails the test unless every block engine request carried
// the configured x-jito-auth header.
func (e *env) jitoAuthSent(t *testing.T) {
	t.Helper()
	for _, c := range e.jito.all() {
		if c.Auth != jitoAuth {
			t.Errorf("%s sent with x-jito-auth %q, want %q", c.Method, c.Auth, jitoAuth)
		}
	}
}

// waitSlots lets n slots pass on the bubble's virtual clock.
func waitSlots(n int) { time.Sleep(time.Duration(n) * chainsim.SlotDuration) }

// newKey returns a fresh keypair.
func newKey(t *testing.T) solana.PrivateKey {
	t.Helper()
	k, err := solana.NewRandomPrivateKey()
	if err != nil {
		t.Fatalf("NewRandomPrivateKey: %v", err)
	}
	return k
}

// signTx builds a legacy transaction of ixs paid by payer, signs it with
// payer and the other signers and returns it ready to send.
func signTx(t *testing.T, ixs []solana.Instruction, bh solana.Hash, payer solana.PrivateKey, others ...solana.PrivateKey) chain.Signed {
	t.Helper()
	tx, err := solana.NewTransaction(ixs, bh, solana.TransactionPayer(payer.PublicKey()))
	if err != nil {
		t.Fatalf("NewTransaction: %v", err)
	}
	keys := append([]solana.PrivateKey{payer}, others...)
	if _, err := tx.Sign(func(k solana.PublicKey) *solana.PrivateKey {
		for i := range keys {
			if keys[i].PublicKey().Equals(k) {
				return &keys[i]
			}
		}
		return nil
	}); err != nil {
		t.Fatalf("Sign: %v", err)
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		t.Fatalf("MarshalBinary: %v", err)
	}
	return chain.Signed{Raw: raw, Signature: tx.Signatures[0], Blockhash: bh}
}

// transferIx is a System transfer.
func transferIx(from, to solana.PublicKey, lamports uint64) solana.Instruction {
	return system.NewTransferInstruction(lamports, from, to).Build()
}

// tokenTransferIx is an SPL Token transfer between the associated token
// accounts of two wallets, authorized by the sender.
func tokenTransferIx(t *testing.T, from, to, mint solana.PublicKey, amount uint64) solana.Instruction {
	t.Helper()
	src, err := svm.AssociatedTokenAddress(from, mint)
	if err != nil {
		t.Fatalf("AssociatedTokenAddress: %v", err)
	}
	dst, err := svm.AssociatedTokenAddress(to, mint)
	if err != nil {
		t.Fatalf("AssociatedTokenAddress: %v", err)
	}
	return token.NewTransferInstruction(amount, src, dst, from, nil).Build()
}

// transferTx is a signed System transfer from payer to a fresh account.
func transferTx(t *testing.T, payer solana.PrivateKey, lamports uint64, bh solana.Hash) chain.Signed {
	t.Helper()
	return signTx(t, []solana.Instruction{transferIx(payer.PublicKey(), newKey(t).PublicKey(), lamports)}, bh, payer)
}

// tipper is a TipFunc that signs BuildTipMessage with the wallet, as
// keeper's signer does, and records every tip asked for.
type tipper struct {
	wallet solana.PrivateKey

	mu    sync.Mutex
	asked []uint64
	made  []chain.Signed
}

// tip implements chain.TipFunc.
func (p *tipper) tip(_ context.Context, acct solana.PublicKey, lamports uint64, bh solana.Hash) (chain.Signed, error) {
	msg, err := chain.BuildTipMessage(p.wallet.PublicKey(), acct, lamports, bh)
	if err != nil {
		return chain.Signed{}, err
	}
	sig, err := p.wallet.Sign(msg)
	if err != nil {
		return chain.Signed{}, err
	}
	s := chain.Signed{Raw: append(append([]byte{1}, sig[:]...), msg...), Signature: sig, Blockhash: bh}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, lamports)
	p.made = append(p.made, s)
	return s, nil
}

// tips returns the tips asked for so far.
func (p *tipper) tips() []uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]uint64(nil), p.asked...)
}

// droppedFor returns the reasons chainsim logged for failing the bundle id,
// in order (a bundle resubmitted after it failed may fail again).
func (e *env) droppedFor(t *testing.T, id string) []string {
	t.Helper()
	var out []string
	for line := range strings.Lines(e.simLogs.String()) {
		var rec struct {
			Msg    string `json:"msg"`
			Bundle string `json:"bundle"`
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("chainsim log line %q: %v", line, err)
		}
		if rec.Msg == "bundle failed" && rec.Bundle == id {
			out = append(out, rec.Reason)
		}
	}
	return out
}

// tipBalance returns the total lamports held by the engine's tip accounts.
func tipBalance(sim *chainsim.Chain) uint64 {
	total := uint64(0)
	for _, k := range sim.Bundles.TipAccounts() {
		total += sim.State.Balance(k)
	}
	return total
}

// paramObject decodes a call's params[i] as a JSON object (nil if absent).
func paramObject(t *testing.T, c rpcCall, i int) map[string]any {
	t.Helper()
	if i >= len(c.Params) {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(c.Params[i], &m); err != nil {
		t.Fatalf("%s params[%d] = %s: not an object: %v", c.Method, i, c.Params[i], err)
	}
	return m
}

// sigs returns the first signatures of txs.
func sigs(txs ...chain.Signed) []solana.Signature {
	out := make([]solana.Signature, len(txs))
	for i, s := range txs {
		out[i] = s.Signature
	}
	return out
}

// checkFinalHistorySearch asserts that the last requests before an
// expiry verdict were isBlockhashValid at confirmed and processed for hash,
// then a getSignatureStatuses searching the whole history (whose answer
// must have seen the slot the hash was gone at).
func checkFinalHistorySearch(t *testing.T, calls []rpcCall, hash solana.Hash) {
	t.Helper()
	if len(calls) < 3 {
		t.Fatalf("%d requests, want the final checks", len(calls))
	}
	last := calls[len(calls)-3:]
	for i, cm := range []string{"confirmed", "processed"} {
		c := last[i]
		if c.Method != "isBlockhashValid" || string(c.Params[0]) != `"`+hash.String()+`"` || paramObject(t, c, 1)["commitment"] != cm {
			t.Errorf("final check %d: %s %s, want isBlockhashValid of %s at %s", i+1, c.Method, c.Params, hash, cm)
		}
	}
	if last[2].Method != "getSignatureStatuses" || paramObject(t, last[2], 1)["searchTransactionHistory"] != true {
		t.Errorf("final status check %s %s, want getSignatureStatuses with searchTransactionHistory", last[2].Method, last[2].Params)
	}
}

// checkSimulateRequest asserts that the last simulateTransaction verified
// signatures at the client's commitment and, on a legacy node (no balances
// in simulation results), asked for the wallet's state (and its token
// account of mint when referenced); on a current node it asks for no
// accounts.
func checkSimulateRequest(t *testing.T, e *env, mint solana.PublicKey, token, legacy bool) {
	t.Helper()
	var last *rpcCall
	for _, c := range e.rpc.all() {
		if c.Method == "simulateTransaction" {
			last = &c
		}
	}
	if last == nil {
		t.Fatal("no simulateTransaction request")
	}
	o := paramObject(t, *last, 1)
	if o["sigVerify"] != false || o["replaceRecentBlockhash"] != false || o["commitment"] != "confirmed" {
		t.Errorf("simulateTransaction config %v, want no sigVerify nor replaceRecentBlockhash, at confirmed", o)
	}
	if !legacy {
		if _, asked := o["accounts"]; asked {
			t.Errorf("simulateTransaction config %v asks for accounts on a node that returns balances", o)
		}
		return
	}
	want := []any{e.wallet.PublicKey().String()}
	if token {
		ata, err := svm.AssociatedTokenAddress(e.wallet.PublicKey(), mint)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, ata.String())
	}
	accts, _ := o["accounts"].(map[string]any)
	if got, _ := accts["addresses"].([]any); !slices.Equal(got, want) {
		t.Errorf("simulation asked for accounts %v, want %v", got, want)
	}
}

// mustLand lands tx through the client and lets it confirm.
func mustLand(t *testing.T, e *env, tx chain.Signed) {
	t.Helper()
	if _, err := e.client.SendAndConfirm(t.Context(), []chain.Signed{tx}); err != nil {
		t.Fatalf("SendAndConfirm: %v", err)
	}
	if _, ok := e.sim.Ledger.Transaction(tx.Signature); !ok {
		t.Fatalf("%s did not land", tx.Signature)
	}
}

// sendOnce sends tx once through the chain's RPC service (skipping
// preflight, as keeper does) without waiting for it.
func sendOnce(t *testing.T, e *env, tx chain.Signed) {
	t.Helper()
	cl := rpc.NewWithCustomRPCClient(jsonrpc.NewClientWithOpts(e.rpcURL, &jsonrpc.RPCClientOpts{HTTPClient: e.net.Client()}))
	zero := uint(0)
	if _, err := cl.SendRawTransactionWithOpts(t.Context(), tx.Raw, rpc.TransactionOpts{SkipPreflight: true, MaxRetries: &zero}); err != nil {
		t.Fatalf("sendTransaction: %v", err)
	}
	_ = cl.Close()
}

// dataErr returns the err member of a JSON-RPC error's data.
func dataErr(re *chain.RPCError) any {
	m, _ := re.Data.(map[string]any)
	return m["err"]
}

// logMessages returns the msg of every JSON log line.
func logMessages(t *testing.T, logs string) []string {
	t.Helper()
	var out []string
	for line := range strings.Lines(logs) {
		var rec struct {
			Msg string `json:"msg"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, rec.Msg)
	}
	return out
}
