package jupiter

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const (
	solMint  = "So11111111111111111111111111111111111111112"
	usdcMint = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	apiKey   = "sekrit-key-123"
)

const quoteJSON = `{"inputMint":"So11111111111111111111111111111111111111112","inAmount":"1000000000",
"outputMint":"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v","outAmount":"150000000","otherAmountThreshold":"148500000",
"swapMode":"ExactIn","slippageBps":100,"platformFee":null,"priceImpactPct":"0.0012",
"routePlan":[{"swapInfo":{"ammKey":"pool1","label":"sim-amm","inputMint":"So11111111111111111111111111111111111111112",
"outputMint":"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v","inAmount":"1000000000","outAmount":"150000000",
"feeAmount":"3000000","feeMint":"So11111111111111111111111111111111111111112"},"percent":100}],"contextSlot":42,"timeTaken":0.01}`

const swapJSON = `{"computeBudgetInstructions":[{"programId":"ComputeBudget111111111111111111111111111111","accounts":[],"data":"AsBcFQA="}],
"setupInstructions":[{"programId":"ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL","accounts":[{"pubkey":"u","isSigner":true,"isWritable":true}],"data":"AQ=="}],
"swapInstruction":{"programId":"JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4","accounts":[{"pubkey":"u","isSigner":true,"isWritable":false}],"data":"AAE="},
"cleanupInstruction":null,"addressLookupTableAddresses":["lut1"]}`

// server answers the two calls and records what it received.
func server(t *testing.T, got map[string]string) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got["key"] = r.Header.Get("x-api-key")
		switch r.URL.Path {
		case DefaultQuotePath:
			got["query"] = r.URL.RawQuery
			io.WriteString(w, quoteJSON)
		case DefaultSwapInstructionsPath:
			b, _ := io.ReadAll(r.Body)
			got["body"] = string(b)
			io.WriteString(w, swapJSON)
		default:
			http.Error(w, `{"error":"no route for key `+apiKey+`"}`, http.StatusNotFound)
		}
	}))
}

func TestQuoteThenSwapInstructions(t *testing.T) {
	got := map[string]string{}
	srv := server(t, got)
	defer srv.Close()
	c, err := New(Options{BaseURL: srv.URL, APIKey: apiKey})
	if err != nil {
		t.Fatal(err)
	}
	q, err := c.Quote(context.Background(), QuoteRequest{InputMint: solMint, OutputMint: usdcMint, Amount: 1e9, SlippageBps: 100, OnlyDirectRoutes: true})
	if err != nil {
		t.Fatal(err)
	}
	if q.OutAmount != 150000000 || q.OtherAmountThreshold != 148500000 || q.PriceImpactPct != 0.0012 || len(q.RoutePlan) != 1 || q.RoutePlan[0].SwapInfo.Label != "sim-amm" {
		t.Fatalf("quote = %+v", q)
	}
	for _, want := range []string{"amount=1000000000", "slippageBps=100", "swapMode=ExactIn", "onlyDirectRoutes=true"} {
		if !strings.Contains(got["query"], want) {
			t.Errorf("query %q lacks %q", got["query"], want)
		}
	}
	if got["key"] != apiKey {
		t.Errorf("x-api-key = %q", got["key"])
	}
	s, err := c.SwapInstructions(context.Background(), SwapRequest{Quote: q, UserPublicKey: "user"})
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		QuoteResponse json.RawMessage `json:"quoteResponse"`
		UserPublicKey string          `json:"userPublicKey"`
	}
	if err := json.Unmarshal([]byte(got["body"]), &body); err != nil || body.UserPublicKey != "user" {
		t.Fatalf("body %s: %v", got["body"], err)
	}
	var sent, orig any
	json.Unmarshal(body.QuoteResponse, &sent)
	json.Unmarshal([]byte(quoteJSON), &orig)
	if sb, _ := json.Marshal(sent); string(sb) != mustJSON(orig) {
		t.Errorf("quoteResponse was not sent back as received: %s", body.QuoteResponse)
	}
	if len(s.SetupInstructions) != 1 || s.SwapInstruction.ProgramID != "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4" ||
		len(s.Swap()) != 1 || len(s.AddressLookupTableAddresses) != 1 || !s.SwapInstruction.Accounts[0].IsSigner {
		t.Fatalf("swap = %+v", s)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestQuoteRefusesAnswerToAnotherQuestion(t *testing.T) {
	got := map[string]string{}
	srv := server(t, got)
	defer srv.Close()
	c, _ := New(Options{BaseURL: srv.URL})
	// The server always quotes 1 SOL: a request for 2 SOL must not accept it.
	if _, err := c.Quote(context.Background(), QuoteRequest{InputMint: solMint, OutputMint: usdcMint, Amount: 2e9, SlippageBps: 50}); err == nil {
		t.Fatal("a quote for another amount was accepted")
	}
	if _, err := c.Quote(context.Background(), QuoteRequest{InputMint: usdcMint, OutputMint: solMint, Amount: 1e9}); err == nil {
		t.Fatal("a quote for other mints was accepted")
	}
}

func TestErrorsRedactTheKey(t *testing.T) {
	got := map[string]string{}
	srv := server(t, got)
	defer srv.Close()
	c, _ := New(Options{BaseURL: srv.URL + "/wrong?token=" + apiKey, APIKey: apiKey})
	_, err := c.Quote(context.Background(), QuoteRequest{InputMint: solMint, OutputMint: usdcMint, Amount: 1e9})
	if err == nil {
		t.Fatal("no error from a 404")
	}
	if strings.Contains(err.Error(), apiKey) || !strings.Contains(err.Error(), "[REDACTED]") {
		t.Fatalf("error %q leaks or does not redact the key", err)
	}
	c2, _ := New(Options{BaseURL: "http://127.0.0.1:1/?token=" + apiKey})
	_, err = c2.Quote(context.Background(), QuoteRequest{InputMint: solMint, OutputMint: usdcMint, Amount: 1e9})
	if err == nil || strings.Contains(err.Error(), apiKey) {
		t.Fatalf("transport error %v leaks the key", err)
	}
}

func TestBodiesAreBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat(" ", 2048)+quoteJSON)
	}))
	defer srv.Close()
	c, _ := New(Options{BaseURL: srv.URL, MaxResponseBytes: 1024})
	if _, err := c.Quote(context.Background(), QuoteRequest{InputMint: solMint, OutputMint: usdcMint, Amount: 1e9}); err == nil || !strings.Contains(err.Error(), "larger") {
		t.Fatalf("err = %v, want a size refusal", err)
	}
}

func TestNewRefusesRelativeURL(t *testing.T) {
	if _, err := New(Options{BaseURL: "api.jup.ag"}); err == nil {
		t.Fatal("relative base URL accepted")
	}
}
