package chain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gorilla/websocket"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
)

// TestBundleSettlesOnTheWebsocket lands a bundle with status polls an hour apart and a node that
// never answers a status read: the node's notifications for the bundle's transaction and its tip
// settle it, the tip that paid included, without waiting for a read. The chain is served on real
// loopback sockets (RPC with its websocket, and the block engine); once the bundle was sent and the
// client subscribed to both signatures, the manual clock moves three slots, enough to land and
// confirm it.
func TestBundleSettlesOnTheWebsocket(t *testing.T) {
	clk := chainsim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	sim, err := chainsim.New(chainsim.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	defer close(release)
	rpcPacer := &pacer{next: sim.RPC(), clk: clk, sim: sim, hold: func(r *http.Request, method string) {
		if method == "getSignatureStatuses" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	}}
	res, err := landBundle(t, sim, clk, rpcPacer, landing{opts: chain.Options{PollInterval: time.Hour, RebroadcastInterval: time.Hour,
		RequestTimeout: time.Hour}})
	if err != nil {
		t.Fatalf("SendBundle: %v", err)
	}
	if res.Outcome != chain.OutcomeLanded || res.Bundle == nil || res.Bundle.LandedTip != 0 || res.Txs[0].State != chain.TxLanded ||
		res.Txs[0].Slot == 0 {
		t.Fatalf("result %+v, bundle %+v; want landed, with its slot, and its first tip paid", res, res.Bundle)
	}
}

// noteBundles is sim's block engine, which also tells on the returned
// channel (without blocking) that a sendBundle was served.
func noteBundles(sim *chainsim.Chain) (http.Handler, <-chan struct{}) {
	sent := make(chan struct{}, 1)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		sim.Jito().ServeHTTP(w, r)
		var call struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &call) == nil && call.Method == "sendBundle" {
			select {
			case sent <- struct{}{}:
			default:
			}
		}
	}), sent
}

// landing is how landBundle lands its bundle: the client's options (their URLs filled in), what
// fires before the clock moves, and whether the node notifies the bundle's first transaction only.
type landing struct {
	opts  chain.Options
	after []<-chan struct{}
	// firstOnly puts a websocket proxy in front of the node that makes every other subscription
	// watch a signature nobody sent (see silenceSubscriptions).
	firstOnly bool
}

// landBundle sends one transfer from a funded wallet as a bundle through a client of l.opts against
// sim served on loopback, node in front of sim's RPC. Once the bundle was sent, each of l.after has
// fired and the client has subscribed to the transaction and its tip, the manual clock moves three
// slots, enough to land and confirm it.
func landBundle(t *testing.T, sim *chainsim.Chain, clk *chainsim.ManualClock, node http.Handler, l landing) (chain.Result, error) {
	t.Helper()
	wallet := newKey(t)
	if err := sim.Setup.Fund(wallet.PublicKey(), walletFunds); err != nil {
		t.Fatal(err)
	}
	bh, _ := sim.Ledger.LatestBlockhash(rpc.CommitmentConfirmed)
	tx := transferTx(t, wallet, 1000, bh)
	jito, sent := noteBundles(sim)
	opts := l.opts
	opts.RPCURLs, opts.JitoURL = []string{serveLoopback(t, node)}, serveLoopback(t, jito)
	if l.firstOnly {
		upstream := chain.WebsocketURL(serveLoopback(t, sim.RPC()))
		opts.WSURL = chain.WebsocketURL(serveLoopback(t, silenceSubscriptions(upstream, tx.Signature.String())))
	}
	ctx, cancel := context.WithTimeout(t.Context(), wsGuard)
	defer cancel()
	go func() {
		for _, c := range append([]<-chan struct{}{sent}, l.after...) {
			select {
			case <-c:
			case <-ctx.Done():
				return
			}
		}
		if err := sim.Pubsub.WaitSubscriptions(ctx, 2); err == nil { // the transaction's and the tip's
			clk.Advance(3 * chainsim.SlotDuration)
		}
	}()
	client := newClient(t, opts)
	tips := &tipper{wallet: wallet}
	return client.SendBundle(ctx, []chain.Signed{tx}, tips.tip, chain.TipPolicy{Floor: chainsim.DefaultMinTip, Cap: chainsim.DefaultMinTip})
}

// silenceSubscriptions is a websocket proxy to the node at upstream (ws://) that passes every
// message on as it is, but a signatureSubscribe of any signature other than keep, which it turns
// into one of a signature nobody sent: the node takes it and never notifies it.
func silenceSubscriptions(upstream, keep string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		up, _, err := websocket.DefaultDialer.DialContext(r.Context(), upstream, nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer up.Close()
		down, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer down.Close()
		go func() { // the node's answers and notifications
			defer down.Close()
			for {
				kind, msg, err := up.ReadMessage()
				if err != nil || down.WriteMessage(kind, msg) != nil {
					return
				}
			}
		}()
		for {
			kind, msg, err := down.ReadMessage()
			if err != nil || up.WriteMessage(kind, silenced(msg, keep)) != nil {
				return
			}
		}
	})
}

// silenced returns msg, or, for a signatureSubscribe of a signature other than keep, the same
// request for a signature nobody sent.
func silenced(msg []byte, keep string) []byte {
	var call map[string]any
	if json.Unmarshal(msg, &call) != nil || call["method"] != "signatureSubscribe" {
		return msg
	}
	params, _ := call["params"].([]any)
	if len(params) == 0 || params[0] == keep {
		return msg
	}
	params[0] = solana.Signature{9}.String()
	out, err := json.Marshal(call)
	if err != nil {
		return msg
	}
	return out
}

// serveLoopback serves h on a loopback port until the test ends and returns its URL.
func serveLoopback(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

// TestBundleConfirmationIsNotHeldByARound lands a bundle while a round of polling hangs: the node
// answers the round's status read only when the test ends, and the chain confirms the bundle only
// once that read is in flight. The node notifies the bundle's transaction but not its tip (as when
// the tip's subscription came after it landed), so the notifications do not prove the landing: the
// status read the transaction's notification wakes settles the bundle, its tip included, and the
// hanging round is called off; a client that waited for the round first would never return.
func TestBundleConfirmationIsNotHeldByARound(t *testing.T) {
	clk := chainsim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	sim, err := chainsim.New(chainsim.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	polling, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	var held atomic.Bool
	rpcPacer := &pacer{next: sim.RPC(), clk: clk, sim: sim, hold: func(r *http.Request, method string) {
		if method != "getSignatureStatuses" || !held.CompareAndSwap(false, true) {
			return
		}
		close(polling)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}}
	res, err := landBundle(t, sim, clk, rpcPacer, landing{opts: chain.Options{PollInterval: time.Millisecond,
		RebroadcastInterval: time.Hour, RequestTimeout: time.Hour}, after: []<-chan struct{}{polling}, firstOnly: true})
	if err != nil {
		t.Fatalf("SendBundle: %v", err)
	}
	if res.Outcome != chain.OutcomeLanded || res.Bundle == nil || res.Bundle.LandedTip != 0 {
		t.Fatalf("outcome %v, bundle %+v; want landed with its first tip", res.Outcome, res.Bundle)
	}
}
