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
	"sync"
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
// node's signatureNotification can tell keeper it confirmed, and it settles the transaction without
// a status read. The simulated chain is served on a real loopback socket (a websocket dial does not
// go through an injected HTTP client); once the transaction is sent and keeper has subscribed to
// it, its manual clock moves three slots, enough to land and confirm it. A transfer of more than the
// wallet holds lands failed, and the notification's error says so.
func TestConfirmationWakesOnTheWebsocket(t *testing.T) {
	for _, tc := range []struct {
		name     string
		lamports uint64
		want     chain.Outcome
	}{{"landed", 1000, chain.OutcomeLanded}, {"failed", 10 * walletFunds, chain.OutcomeFailed}} {
		t.Run(tc.name, func(t *testing.T) {
			p := &pacer{sent: make(chan struct{}, 1)}
			p.after = func(ctx context.Context) {
				select {
				case <-p.sent:
				case <-ctx.Done():
					return
				}
				if err := p.sim.Pubsub.WaitSubscriptions(ctx, 1); err == nil {
					p.clk.Advance(3 * chainsim.SlotDuration)
				}
			}
			res := landOn(t, p, chain.Options{PollInterval: time.Hour, RebroadcastInterval: time.Hour}, chainsim.Faults{}, tc.lamports)
			st, ok := p.sim.Ledger.SignatureStatus(res.Txs[0].Signature, true)
			if res.Outcome != tc.want || !ok || res.Txs[0].Slot != st.Slot {
				t.Fatalf("outcome %v in slot %d, want %v in slot %d (known %v)", res.Outcome, res.Txs[0].Slot, tc.want, st.Slot, ok)
			}
			if n := p.count("getSignatureStatuses"); n != 0 {
				t.Errorf("%d status reads, want none: the notification settles it", n)
			}
		})
	}
}

// TestConfirmationIsNotHeldByAPollInFlight confirms by the websocket while a status poll hangs:
// the node answers no getSignatureStatuses until the test ends, and the chain confirms the
// transaction only once such a poll is in flight. The notification settles the transaction at
// once; a confirmation loop that waited for the poll's answer first would never return.
func TestConfirmationIsNotHeldByAPollInFlight(t *testing.T) {
	polling, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	p := &pacer{sent: make(chan struct{}, 1)}
	p.hold = func(r *http.Request, method string) {
		if method != "getSignatureStatuses" {
			return
		}
		select {
		case polling <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	p.after = func(ctx context.Context) {
		for _, c := range []chan struct{}{p.sent, polling} {
			select {
			case <-c:
			case <-ctx.Done():
				return
			}
		}
		if err := p.sim.Pubsub.WaitSubscriptions(ctx, 1); err == nil {
			p.clk.Advance(3 * chainsim.SlotDuration)
		}
	}
	res := landOn(t, p, chain.Options{PollInterval: time.Millisecond, RebroadcastInterval: time.Hour, RequestTimeout: time.Hour},
		chainsim.Faults{}, 1000)
	if res.Outcome != chain.OutcomeLanded {
		t.Fatalf("outcome %v, want landed by the notification", res.Outcome)
	}
}

// TestConfirmationPollsWhenTheWebsocketIsRefused confirms by polling alone when the node refuses
// the websocket upgrade: the refusal costs the notification, nothing else.
func TestConfirmationPollsWhenTheWebsocketIsRefused(t *testing.T) {
	res := landOn(t, &pacer{slots: map[string]int{"getSignatureStatuses": 1}}, chain.Options{PollInterval: 100 * time.Millisecond,
		RebroadcastInterval: time.Hour}, chainsim.Faults{Pubsub: chainsim.PubsubFaults{RefuseUpgrade: true}}, 1000)
	if res.Outcome != chain.OutcomeLanded {
		t.Fatalf("outcome %v, want landed by polling", res.Outcome)
	}
}

// landOn sends a transfer of lamports through a client with o's timing to a chain served on
// loopback with faults, through p, and returns the result.
func landOn(t *testing.T, p *pacer, o chain.Options, faults chainsim.Faults, lamports uint64) chain.Result {
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
	p.next, p.clk, p.sim = sim.RPC(), clk, sim
	srv := &http.Server{Handler: p}
	if p.after != nil {
		go p.after(t.Context())
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	wallet := newKey(t)
	if err := sim.Setup.Fund(wallet.PublicKey(), walletFunds); err != nil {
		t.Fatal(err)
	}
	o.RPCURLs = []string{"http://" + ln.Addr().String()}
	client := newClient(t, o)
	bh, _ := sim.Ledger.LatestBlockhash(rpc.CommitmentConfirmed)
	ctx, cancel := context.WithTimeout(t.Context(), wsGuard)
	defer cancel()
	res, err := client.SendAndConfirm(ctx, []chain.Signed{transferTx(t, wallet, lamports, bh)})
	if err != nil {
		t.Fatalf("SendAndConfirm: %v", err)
	}
	return res
}

// pacer serves JSON-RPC calls, then moves the chain's clock by slots[method] slots; it counts the
// calls of each method.
type pacer struct {
	next  http.Handler
	clk   *chainsim.ManualClock
	sim   *chainsim.Chain
	slots map[string]int
	// sent, if set, receives a value when sendTransaction was served; after, if set, runs beside
	// the send (it paces the clock itself).
	sent  chan struct{}
	after func(context.Context)
	// hold, if set, runs before a call is served; it may keep the call in flight.
	hold func(r *http.Request, method string)

	mu    sync.Mutex
	calls map[string]int // guarded by mu
}

// count returns how often method was called.
func (p *pacer) count(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[method]
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
	if p.hold != nil {
		p.hold(r, call.Method)
	}
	p.next.ServeHTTP(w, r)
	p.mu.Lock()
	if p.calls == nil {
		p.calls = map[string]int{}
	}
	p.calls[call.Method]++
	p.mu.Unlock()
	if call.Method == "sendTransaction" && p.sent != nil {
		select {
		case p.sent <- struct{}{}:
		default:
		}
	}
	p.clk.Advance(time.Duration(p.slots[call.Method]) * chainsim.SlotDuration)
}

// TestUnreachableWebsocketKeepsItsKeySecret points the websocket at a closed port with a key in its
// query: keeper confirms by polling, says at INFO that it polls alone, and prints no part of the key.
func TestUnreachableWebsocketKeepsItsKeySecret(t *testing.T) {
	logs := &logBuffer{}
	res := landOn(t, &pacer{slots: map[string]int{"getSignatureStatuses": 1}}, chain.Options{PollInterval: 100 * time.Millisecond,
		RebroadcastInterval: time.Hour, WSURL: "ws://127.0.0.1:1/ws?api-key=" + apiKey,
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}, chainsim.Faults{}, 1000)
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
