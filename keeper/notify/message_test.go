package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestDryRunMessagesPostOnlyWhenAsked: a dry run's messages are dropped
// unless the dispatcher is told to post them, and then say "dry run".
func TestDryRunMessagesPostOnlyWhenAsked(t *testing.T) {
	m := Message{Event: Alert, Policy: "p", Target: "1", Reason: "low", DryRun: true}
	for _, post := range []bool{false, true} {
		r := &recorder{name: "r"}
		d := New(Options{Senders: []Sender{r}, PostDryRun: post})
		d.Page(m)
		d.Drain(context.Background())
		if got := len(r.got) == 1; got != post {
			t.Errorf("PostDryRun %v: delivered %d messages", post, len(r.got))
		}
	}
	if text := m.Text(); !strings.HasPrefix(text, "[keeper] DRY RUN ALERT p") {
		t.Errorf("a dry run's text %q does not say so", text)
	}
}

// TestSlackShortensAndLinks: Slack gets addresses and signatures shortened
// and linked, the incident id, and its reserved characters escaped.
func TestSlackShortensAndLinks(t *testing.T) {
	const (
		loan = "8gHEcDSH8rcUnXenciGFyEyeWwyTLELk55fCj2QVx4jY"
		sig  = "33caRHfbXbZ4fA9m8XuQ3dQoyH4Kgk6aC1Lw6Z8rWnQfUjHbyZ4ZqL7Ycqxw3B3tYbnyx6tBqB5S3a7GQzqF2u1R"
	)
	m := Message{Event: Alert, Policy: "health", Target: loan, TargetLink: "https://explorer.solana.com/address/" + loan,
		Reason: "loan " + loan + " health 0.13 < 0.25", Incident: "7", Signatures: []string{sig}, Links: []string{"https://explorer.solana.com/tx/" + sig}}
	got := slackText(m)
	want := "[keeper] ALERT health on <https://explorer.solana.com/address/" + loan + "|8gHE…x4jY>: loan 8gHE…x4jY health 0.13 &lt; 0.25 (incident 7)" +
		" tx <https://explorer.solana.com/tx/" + sig + "|33ca…2u1R>"
	if got != want {
		t.Errorf("slack text\n got %q\nwant %q", got, want)
	}
	m.TargetLink, m.Links = "", nil
	if got := slackText(m); !strings.Contains(got, "on 8gHE…x4jY:") || !strings.HasSuffix(got, " tx 33ca…2u1R") {
		t.Errorf("without links: %q", got)
	}
}

// TestResolutionSaysTheValueNow: a resolution says "resolved", what the
// facts its condition reads are now and the incident id, in the text
// (chats, email), in Slack's and in the JSON webhook's payload.
func TestResolutionSaysTheValueNow(t *testing.T) {
	m := Message{Event: Resolved, Policy: "health", Target: "Loan1", Incident: "7", Value: "loan.health 0.31",
		Reason: "resolved: loan.health < 0.25 no longer holds (open for 20s)"}
	want := "[keeper] RESOLVED health on Loan1: resolved: loan.health < 0.25 no longer holds (open for 20s); now loan.health 0.31 (incident 7)"
	if got := m.Text(); got != want {
		t.Errorf("text\n got %q\nwant %q", got, want)
	}
	if got := slackText(m); !strings.Contains(got, "&lt; 0.25 no longer holds (open for 20s); now loan.health 0.31 (incident 7)") {
		t.Errorf("slack text %q lacks the value now", got)
	}
	w, err := NewWebhook("n", "https://example.invalid/hook", JSON, nil, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	body, _, err := w.payload(m)
	var got Message
	if err != nil || json.Unmarshal(body, &got) != nil || got.Value != m.Value || got.Incident != "7" || got.Event != Resolved {
		t.Errorf("webhook payload %s (%v)", body, err)
	}
}

// TestDispatcherLinksTargets: a message's target gets its explorer link.
func TestDispatcherLinksTargets(t *testing.T) {
	r := &recorder{name: "r"}
	d := New(Options{Senders: []Sender{r}, AddressLink: func(a string) string { return "https://x/address/" + a }})
	d.Page(Message{Event: Alert, Policy: "p", Target: "T"})
	d.Drain(context.Background())
	if len(r.got) != 1 || r.got[0].TargetLink != "https://x/address/T" {
		t.Errorf("delivered %+v", r.got)
	}
}

// TestWebhookSignature: with a signing secret the post carries
// X-Keeper-Signature, which a receiver verifies as docs/operations.md
// says: HMAC-SHA256 over "<t>.<body>"; without one, no header.
func TestWebhookSignature(t *testing.T) {
	type post struct {
		header string
		body   []byte
	}
	var posts []post
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		posts = append(posts, post{r.Header.Get(SignatureHeader), body})
	}))
	defer srv.Close()
	for _, secret := range []string{"s3cret", ""} {
		w, err := NewWebhook("ops", srv.URL, JSON, srv.Client(), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		w.WithSigningSecret(secret).now = func() time.Time { return t0 }
		if err := w.Send(context.Background(), Message{Event: Alert, Policy: "p", Incident: "3"}); err != nil {
			t.Fatal(err)
		}
	}
	if len(posts) != 2 || posts[1].header != "" {
		t.Fatalf("posts %+v: want a signed one, then an unsigned one", posts)
	}
	ts, mac, ok := strings.Cut(posts[0].header, ",v1=")
	if !ok || ts != "t=1795262400" {
		t.Fatalf("header %q", posts[0].header)
	}
	h := hmac.New(sha256.New, []byte("s3cret"))
	h.Write([]byte("1795262400."))
	h.Write(posts[0].body)
	if !hmac.Equal([]byte(mac), []byte(hex.EncodeToString(h.Sum(nil)))) {
		t.Errorf("signature %s does not verify over the body", mac)
	}
	var m Message
	if err := json.Unmarshal(posts[0].body, &m); err != nil || m.Incident != "3" {
		t.Errorf("body %s: incident id missing (%v)", posts[0].body, err)
	}
}
