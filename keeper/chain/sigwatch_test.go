package chain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go/rpc"

	"github.com/keeper-project/keeper/keeper/chain"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
)

// wsGuard bounds how long the websocket tests wait on real time for what should happen at once; it
// only turns a hang into a failure.
const wsGuard = 30 * time.Second

// TestConfirmationWakesOnTheWebsocket lands a transaction with status polls an hour apart: only the
// node's signatureNotification can tell keeper it confirmed. The simulated chain is served on a
// real loopback socket (a websocket dial does not go through an injected HTTP client); its manual
// clock moves three slots when the transaction is sent, enough to land and confirm it.
func TestConfirmationWakesOnTheWebsocket(t *testing.T) {
	res := landOnPacedChain(t, chain.Options{PollInterval: time.Hour, RebroadcastInterval: time.Hour}, chainsim.Faults{},
		map[string]int{"sendTransaction": 3})
	if res.Outcome != chain.OutcomeLanded {
		t.Fatalf("outcome %v, want landed", res.Outcome)
	}
}

// TestConfirmationPollsWhenTheWebsocketIsRefused confirms by polling alone when the node refuses
// the websocket upgrade: the refusal costs the notification, nothing else.
func TestConfirmationPollsWhenTheWebsocketIsRefused(t *testing.T) {
	res := landOnPacedChain(t, chain.Options{PollInterval: 100 * time.Millisecond, RebroadcastInterval: time.Hour},
		chainsim.Faults{Pubsub: chainsim.PubsubFaults{RefuseUpgrade: true}}, map[string]int{"getSignatureStatuses": 1})
	if res.Outcome != chain.OutcomeLanded {
		t.Fatalf("outcome %v, want landed by polling", res.Outcome)
	}
}

// landOnPacedChain sends one transfer through a client with o's timing to a chain served on
// loopback with faults, whose clock moves by pace[method] slots after each call of method, and
// returns the result.
func landOnPacedChain(t *testing.T, o chain.Options, faults chainsim.Faults, pace map[string]int) chain.Result {
	t.Helper()
	clk := chainsim.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	sim, err := chainsim.New(chainsim.Options{Clock: clk, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: &pacer{next: sim.RPC(), clk: clk, slots: pace}}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	wallet := newKey(t)
	if err := sim.Fund(wallet.PublicKey(), walletFunds); err != nil {
		t.Fatal(err)
	}
	o.RPCURLs = []string{"http://" + ln.Addr().String()}
	client := newClient(t, o)
	bh, _ := sim.LatestBlockhash(rpc.CommitmentConfirmed)
	ctx, cancel := context.WithTimeout(t.Context(), wsGuard)
	defer cancel()
	res, err := client.SendAndConfirm(ctx, []chain.Signed{transferTx(t, wallet, 1000, bh)})
	if err != nil {
		t.Fatalf("SendAndConfirm: %v", err)
	}
	return res
}

// pacer serves JSON-RPC calls and then moves the chain's clock by slots[method] slots.
type pacer struct {
	next  http.Handler
	clk   *chainsim.ManualClock
	slots map[string]int
}

// ServeHTTP serves the request, then paces the clock.
func (p *pacer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var call struct {
		Method string `json:"method"`
	}
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &call)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	p.next.ServeHTTP(w, r)
	p.clk.Advance(time.Duration(p.slots[call.Method]) * chainsim.SlotDuration)
}

// TestUnreachableWebsocketKeepsItsKeySecret points the websocket at a closed port with a key in its
// query: keeper confirms by polling, says at INFO that it polls alone, and prints no part of the key.
func TestUnreachableWebsocketKeepsItsKeySecret(t *testing.T) {
	logs := &logBuffer{}
	res := landOnPacedChain(t, chain.Options{PollInterval: 100 * time.Millisecond, RebroadcastInterval: time.Hour,
		WSURL: "ws://127.0.0.1:1/ws?api-key=" + apiKey, Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))},
		chainsim.Faults{}, map[string]int{"getSignatureStatuses": 1})
	if res.Outcome != chain.OutcomeLanded {
		t.Fatalf("outcome %v, want landed by polling", res.Outcome)
	}
	out := logs.String()
	if !strings.Contains(out, "No websocket for confirmations") {
		t.Errorf("no line says the websocket is unreachable:\n%s", out)
	}
	if strings.Contains(out, apiKey) || strings.Contains(out, "api-key") {
		t.Errorf("the logs print the websocket URL's key:\n%s", out)
	}
}
