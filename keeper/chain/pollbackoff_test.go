package chain

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestPollBackoff polls an eighth of the interval after the send, then at doubling waits up to the
// interval.
func TestPollBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		p := newPollBackoff(time.Second)
		defer p.stop()
		var at []time.Duration
		for range 6 {
			<-p.c()
			at = append(at, time.Since(start))
			p.next()
		}
		want := []time.Duration{125, 375, 875, 1875, 2875, 3875}
		for i := range want {
			if at[i] != want[i]*time.Millisecond {
				t.Fatalf("polls at %v, want %v ms", at, want)
			}
		}
	})
}

// TestWSURL derives the websocket endpoint as Solana's clients do, keeping the path and query (a
// provider's key), and refuses other schemes.
func TestWSURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8899":              "ws://127.0.0.1:8899",
		"https://rpc.example.com/v1?key=abc": "wss://rpc.example.com/v1?key=abc",
		"wss://rpc.example.com/":             "wss://rpc.example.com/",
		"ftp://rpc.example.com":              "",
		"::":                                 "",
	} {
		if got := WebsocketURL(in); got != want {
			t.Errorf("WebsocketURL(%q) = %q, want %q", in, got, want)
		}
	}
	if _, err := New(Options{RPCURLs: []string{"http://127.0.0.1:1"}, WSURL: "https://rpc.example.com/?key=SECRETKEY"}); err == nil {
		t.Error("an https websocket url was accepted")
	}
}
