package chain

import (
	"net/http"
	"testing"

	"github.com/gagliardetto/solana-go"
)

func TestNames(t *testing.T) {
	tests := []struct{ got, want string }{
		{OutcomeLanded.String(), "landed"},
		{OutcomePartial.String(), "partial"},
		{Outcome(99).String(), "unknown"},
		{TxExpired.String(), "expired"},
		{TxState(-1).String(), "unknown"},
		{RouteRPCFallback.String(), "rpc-fallback"},
		{Route(7).String(), "unknown"},
		{VerdictDead.String(), "dead"},
		{Verdict(3).String(), "unknown"},
		{(&TxError{Signature: "sig", Slot: 9, Err: map[string]any{"InstructionError": []any{0, "InvalidAccountData"}}}).Error(),
			`transaction sig landed in slot 9 and failed: {"InstructionError":[0,"InvalidAccountData"]}`},
		{(&RPCError{Method: "sendTransaction", Endpoint: "https://x", Code: -32002, Message: "boom"}).Error(),
			"sendTransaction on https://x: rpc error -32002: boom"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestSendURLFirst(t *testing.T) {
	tests := []struct {
		name     string
		sendUp   bool
		wantHost string
	}{
		{"send url used for sends only", true, "send.test"},
		{"send url down: rpc urls take over", false, "rpc.test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc := newFakeChain(150)
			tr := memTransport{"rpc.test": fc}
			if tt.sendUp {
				tr["send.test"] = fc
			}
			c, _ := newMemClient(t, fc, func(o *Options) {
				o.SendURL, o.HTTPClient = "http://send.test/?key="+secretKey, &http.Client{Transport: tr}
			})
			s := transferTx(t, newKey(t), fc.newBlockhash(), 1)
			if err := c.send.broadcast(t.Context(), s); err != nil {
				t.Fatalf("broadcast: %v", err)
			}
			if _, err := c.Statuses(t.Context(), []solana.Signature{s.Signature}); err != nil {
				t.Fatal(err)
			}
			if h := fc.callsOf("sendTransaction")[0].host; h != tt.wantHost {
				t.Errorf("sent to %s, want %s", h, tt.wantHost)
			}
			if h := fc.callsOf("getSignatureStatuses")[0].host; h != "rpc.test" {
				t.Errorf("statuses asked of %s, want rpc.test", h)
			}
		})
	}
}
