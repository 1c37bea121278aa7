package notify

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

type recorder struct {
	name  string
	fails int // fail this many sends first
	mu    sync.Mutex
	got   []Message
	tries int
	times []time.Time
}

func (r *recorder) Name() string { return r.name }

func (r *recorder) Send(_ context.Context, m Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tries++
	r.times = append(r.times, time.Now())
	if r.tries <= r.fails {
		return errors.New("down")
	}
	r.got = append(r.got, m)
	return nil
}

func (r *recorder) events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, m := range r.got {
		out = append(out, m.Event)
	}
	return out
}

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func run(t *testing.T, d *Dispatcher) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

func TestDedupAndRouting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := &recorder{name: "a"}, &recorder{name: "b"}
		now := t0
		d := New(Options{Senders: []Sender{a, b}, DedupWindow: time.Hour, Now: func() time.Time { return now }})
		stop := run(t, d)
		m := Message{Event: Failed, Policy: "p", Target: "loan1", Reason: "r"}
		if !d.Notify(m) {
			t.Fatal("first message dropped")
		}
		now = now.Add(59 * time.Minute)
		if d.Notify(m) {
			t.Error("repeat within the window was queued")
		}
		now = now.Add(2 * time.Minute)
		if !d.Notify(m) {
			t.Error("repeat after the window was dropped")
		}
		other := m
		other.Target = "loan2"
		other.To = []string{"b"}
		d.Notify(other)
		synctest.Wait()
		stop()
		if len(a.got) != 2 || len(b.got) != 3 {
			t.Errorf("a got %d, b got %d; want 2 and 3", len(a.got), len(b.got))
		}
	})
}

func TestPageSkipsDedup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{name: "r"}
		d := New(Options{Senders: []Sender{r}})
		stop := run(t, d)
		m := Message{Event: Alert, Policy: "apy-floor", Target: "vault1", Reason: "total apy 0.03 < 0.05"}
		d.Page(m)
		d.Page(Message{Event: Resolved, Policy: "apy-floor", Target: "vault1", Reason: "condition cleared"})
		d.Page(m) // a new incident with the same text: paged again, within the dedup window
		d.Notify(m)
		d.Notify(m) // deduplicated
		synctest.Wait()
		stop()
		got := r.events()
		want := []Event{Alert, Resolved, Alert, Alert}
		if !slices.Equal(got, want) {
			t.Fatalf("events = %v, want %v", got, want)
		}
	})
}

func TestRetryBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{name: "r", fails: 2}
		var delivered []error
		d := New(Options{Senders: []Sender{r}, Retries: 3, Backoff: time.Second,
			Delivered: func(_ string, err error) { delivered = append(delivered, err) }})
		stop := run(t, d)
		start := time.Now()
		d.Notify(Message{Event: Landed, Policy: "p", Reason: "x"})
		synctest.Wait()
		time.Sleep(10 * time.Second) // virtual time inside the bubble
		synctest.Wait()
		stop()
		if r.tries != 3 || len(r.got) != 1 {
			t.Fatalf("tries %d, delivered %d; want 3 and 1", r.tries, len(r.got))
		}
		if g1, g2 := r.times[1].Sub(start), r.times[2].Sub(start); g1 != time.Second || g2 != 3*time.Second {
			t.Errorf("retries at %v and %v, want 1s and 3s (doubling)", g1, g2)
		}
		if len(delivered) != 1 || delivered[0] != nil {
			t.Errorf("Delivered calls = %v", delivered)
		}
	})
}

func TestGivesUpAfterRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{name: "r", fails: 100}
		var final error
		d := New(Options{Senders: []Sender{r}, Retries: 2, Backoff: time.Second, Delivered: func(_ string, err error) { final = err }})
		stop := run(t, d)
		d.Notify(Message{Event: Failed, Policy: "p", Reason: "x"})
		time.Sleep(time.Minute)
		synctest.Wait()
		stop()
		if r.tries != 3 || final == nil {
			t.Errorf("tries %d, final error %v; want 3 tries and an error", r.tries, final)
		}
	})
}

func TestQueueFullDrops(t *testing.T) {
	d := New(Options{QueueSize: 1})
	if !d.Notify(Message{Policy: "p", Target: "1"}) || d.Notify(Message{Policy: "p", Target: "2"}) {
		t.Error("want first queued and second dropped while nothing delivers")
	}
}

func TestWebhookPayloads(t *testing.T) {
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || r.URL.Path != "/hook/tok-SECRET" {
			t.Errorf("request %s %s %s", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		raw, _ := io.ReadAll(r.Body)
		var v map[string]any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Error(err)
		}
		bodies = append(bodies, v)
	}))
	defer srv.Close()
	m := Message{Event: Landed, Policy: "auto-repay", Kind: "repay", Target: "Loan1", ActionID: "abc",
		Reason: "health 0.08 < 0.12: repay 412.5 USDC", Signatures: []string{"5sig"}, Time: t0}
	for _, f := range []Format{JSON, Slack} {
		w, err := NewWebhook("ops", srv.URL+"/hook/tok-SECRET", f, srv.Client(), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Send(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	if bodies[0]["event"] != "landed" || bodies[0]["reason"] != m.Reason || bodies[0]["policy"] != "auto-repay" || bodies[0]["action_id"] != "abc" {
		t.Errorf("json payload = %v", bodies[0])
	}
	want := "[keeper] LANDED auto-repay on Loan1: health 0.08 &lt; 0.12: repay 412.5 USDC tx 5sig" // Slack escapes <
	if bodies[1]["text"] != want {
		t.Errorf("slack text = %q, want %q", bodies[1]["text"], want)
	}
}

func TestWebhookErrorsHideURL(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	}))
	w, _ := NewWebhook("ops", srv.URL+"/tok-SECRET", JSON, srv.Client(), time.Second)
	err := w.Send(context.Background(), Message{})
	if err == nil || !strings.Contains(err.Error(), "HTTP 502") || strings.Contains(err.Error(), "tok-SECRET") {
		t.Errorf("err = %v", err)
	}
	srv.Close()
	err = w.Send(context.Background(), Message{})
	if err == nil || strings.Contains(err.Error(), "tok-SECRET") {
		t.Errorf("connection error leaks the URL: %v", err)
	}
	if _, err := NewWebhook("x", "://bad?tok-SECRET", JSON, nil, time.Second); err == nil || strings.Contains(err.Error(), "tok-SECRET") {
		t.Errorf("bad URL error = %v", err)
	}
}

func TestDrainDeliversQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{name: "r"}
		d := New(Options{Senders: []Sender{r}})
		d.Notify(Message{Event: Failed, Policy: "p", Target: "1", Reason: "x"})
		d.Notify(Message{Event: Failed, Policy: "p", Target: "2", Reason: "x"})
		d.Drain(context.Background())
		if len(r.got) != 2 {
			t.Errorf("drained %d messages, want 2", len(r.got))
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		d.Notify(Message{Event: Failed, Policy: "p", Target: "3", Reason: "x"})
		d.Drain(ctx)
		if len(r.got) != 2 {
			t.Errorf("a cancelled drain delivered: %d messages", len(r.got))
		}
	})
}

type ownRetries struct {
	*recorder
	n int
}

func (o ownRetries) Retries() int { return o.n }

func TestSenderOwnRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{name: "r", fails: 100}
		d := New(Options{Senders: []Sender{ownRetries{r, 1}}, Retries: 5, Backoff: time.Second})
		stop := run(t, d)
		d.Notify(Message{Event: Failed, Policy: "p", Reason: "x"})
		time.Sleep(time.Minute)
		synctest.Wait()
		stop()
		if r.tries != 2 {
			t.Errorf("tries = %d, want 2 (the sender's own 1 retry, not the default 5)", r.tries)
		}
	})
	w, _ := NewWebhook("w", "http://127.0.0.1:1/x", JSON, nil, time.Second)
	if w.Retries() != -1 || w.WithRetries(4).Retries() != 4 || w.WithRetries(-3).Retries() != 0 {
		t.Errorf("webhook retries = %d", w.Retries())
	}
}

func TestTextCarriesLinksAmountAndCosts(t *testing.T) {
	m := Message{Event: Landed, Policy: "auto-repay", Target: "Loan1", Reason: "health low",
		Signatures: []string{"5sig", "6sig"}, Links: []string{"https://x/tx/5sig", "https://x/tx/6sig"},
		Amount: "412.5 USDC", FeeLamports: 10_000, TipLamports: 1_500_000}
	want := "[keeper] LANDED auto-repay on Loan1: health low; amount 412.5 USDC; paid 0.00001 SOL fee + 0.0015 SOL tip tx https://x/tx/5sig https://x/tx/6sig"
	if got := m.Text(); got != want {
		t.Errorf("Text() =\n %s\nwant\n %s", got, want)
	}
}

func TestChannelPayloads(t *testing.T) {
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	alert := Message{Event: Alert, Policy: "health", Kind: "alert", Target: "Loan1", Severity: "critical", Reason: "health 0.1 < 0.2", Time: at}
	failed := Message{Event: Failed, Policy: "repay", Kind: "repay", Target: "Loan1", ActionID: "abc", Reason: "r", Detail: "chain-failed",
		Links: []string{"https://x/tx/5sig"}, Time: at}
	decode := func(w *Webhook, m Message) map[string]any {
		t.Helper()
		b, skip, err := w.payload(m)
		if err != nil || skip {
			t.Fatalf("%s payload of %s: skip %v, %v", w.format, m.Event, skip, err)
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	mk := func(f Format) *Webhook {
		w, err := NewWebhook("n", "https://example.invalid/hook", f, nil, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	pd := mk(PagerDuty).WithRoutingKey("R0UT1NG")
	trig := decode(pd, alert)
	payload, _ := trig["payload"].(map[string]any)
	if trig["event_action"] != "trigger" || trig["routing_key"] != "R0UT1NG" || trig["dedup_key"] != "keeper/health/Loan1" ||
		payload["severity"] != "critical" || payload["source"] != "keeper" || !strings.Contains(payload["summary"].(string), "health 0.1 < 0.2") {
		t.Errorf("pagerduty trigger = %v", trig)
	}
	res := decode(pd, Message{Event: Resolved, Policy: "health", Target: "Loan1", Severity: "critical", Time: at,
		Reason: "resolved: loan.health < 0.2 no longer holds", Value: "loan.health 0.31", Incident: "7"})
	payload, _ = res["payload"].(map[string]any)
	details, _ := payload["custom_details"].(map[string]any)
	if res["event_action"] != "resolve" || res["dedup_key"] != "keeper/health/Loan1" || payload["severity"] != "critical" ||
		!strings.Contains(payload["summary"].(string), "; now loan.health 0.31") || details["incident"] != "7" || details["value"] != "loan.health 0.31" {
		t.Errorf("pagerduty resolve = %v", res)
	}
	fail := decode(pd, failed)
	if fail["dedup_key"] != "keeper/action/abc" || fail["payload"].(map[string]any)["severity"] != "error" ||
		fail["links"].([]any)[0].(map[string]any)["href"] != "https://x/tx/5sig" {
		t.Errorf("pagerduty failed action = %v", fail)
	}
	if _, skip, err := pd.payload(Message{Event: Landed}); !skip || err != nil {
		t.Errorf("pagerduty landed: skip %v, %v; want skipped", skip, err)
	}
	if _, _, err := mk(PagerDuty).payload(alert); err == nil {
		t.Error("pagerduty without a routing key made a payload")
	}
	tg := decode(mk(Telegram).WithTelegramChat("-1001"), alert)
	if tg["chat_id"] != "-1001" || !strings.HasPrefix(tg["text"].(string), "[keeper] ALERT health on Loan1") {
		t.Errorf("telegram = %v", tg)
	}
	long := alert
	long.Reason = strings.Repeat("x", 3000)
	dc := decode(mk(Discord), long)
	if n := len([]rune(dc["content"].(string))); n != discordMax {
		t.Errorf("discord content has %d runes, want it cut to %d", n, discordMax)
	}
	if mentions := dc["allowed_mentions"].(map[string]any)["parse"].([]any); len(mentions) != 0 {
		t.Errorf("discord allows mentions: %v", mentions)
	}
}
