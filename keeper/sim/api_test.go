package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/keeper/sim/chainsim"
	"github.com/keeper-project/keeper/keeper/sim/ids"
	"github.com/keeper-project/keeper/keeper/sim/internal/apiwire"
)

// rawResponse is an HTTP answer read in full.
type rawResponse struct {
	status    int
	body      []byte
	header    http.Header
	truncated bool // the body ended before its Content-Length
}

// post sends a raw POST to a market path below /v1 with optional wallet and idempotency headers.
func (e *env) post(t *testing.T, method, path, wallet, key, body string) rawResponse {
	t.Helper()
	req, err := http.NewRequestWithContext(e.ctx, method, e.urls.Market+"/"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if wallet != "" {
		req.Header.Set("user-wallet", wallet)
	}
	if key != "" {
		req.Header.Set("Idempotent-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatal(err)
	}
	return rawResponse{status: resp.StatusCode, body: b, header: resp.Header, truncated: err != nil}
}

// message returns the envelope's message.
func (r rawResponse) message(t *testing.T) string {
	t.Helper()
	var env apiwire.Envelope
	if err := json.Unmarshal(r.body, &env); err != nil || env.Error.Code != r.status {
		t.Fatalf("not an error envelope mirroring %d: %s", r.status, r.body)
	}
	return env.Error.Message
}

func TestIdempotencyReplayAndConflict(t *testing.T) {
	e := newEnv(t, Options{})
	body := `{"loan":"` + e.addr(t, ids.KindLoan, "repay-me").String() + `","steps":[{"type":"repay","params":{"repayParams":[{"amount":1000000,"ledgerIndex":0,"repayAll":false}]}}]}`
	w := testWallet().String()
	first := e.post(t, http.MethodPost, "markets/creditbook/build", w, "idem-1", body)
	e.advance(t, 5*chainsim.SlotDuration)
	again := e.post(t, http.MethodPost, "markets/creditbook/build", w, "idem-1", body)
	if first.status != 200 || again.status != 200 || !bytes.Equal(first.body, again.body) {
		t.Fatalf("replay differs: %d %s\n%d %s", first.status, first.body, again.status, again.body)
	}
	fresh := e.post(t, http.MethodPost, "markets/creditbook/build", w, "idem-2", body)
	if bytes.Equal(fresh.body, first.body) {
		t.Errorf("a new key five slots later built the same bytes (same blockhash)")
	}
	other := strings.Replace(body, "1000000", "2000000", 1)
	conflict := e.post(t, http.MethodPost, "markets/creditbook/build", w, "idem-1", other)
	if conflict.status != http.StatusConflict || !strings.Contains(conflict.message(t), "idem-1") {
		t.Errorf("reused key, other body: %d %s", conflict.status, conflict.body)
	}
	_, err := e.market.BuildLoan(e.ctx, "idem-1", market.BuildLoanRequest{Loan: e.addr(t, ids.KindLoan, "repay-me").String(),
		Steps: []market.Step{{Type: market.StepRepay, Params: market.StepParams{RepayParams: []market.RepayParam{{Amount: 3}}}}}})
	if !errors.Is(err, api.ErrIdempotencyConflict) {
		t.Errorf("client sees %v, want ErrIdempotencyConflict", err)
	}
}

func TestUnauthorized(t *testing.T) {
	e := newEnv(t, Options{})
	a := func(kind, name string) string { return e.addr(t, kind, name).String() }
	w := testWallet().String()
	tests := []struct {
		name, path, body, want string
	}{
		{"update another's strategy", "markets/strategy/update",
			`{"strategy":"` + a(ids.KindStrategy, "beta") + `","updateParams":{"originationsEnabled":false}}`, "is not the authority of strategy"},
		{"withdraw from another's strategy", "markets/strategy/withdraw",
			`{"strategy":"` + a(ids.KindStrategy, "beta") + `","amount":1,"withdrawAll":false}`, "is not the authority of strategy"},
		{"repay another's loan", "markets/creditbook/build",
			`{"loan":"` + a(ids.KindLoan, "alice-sol") + `","steps":[{"type":"repay","params":{"repayParams":[{"amount":1,"ledgerIndex":0,"repayAll":false}]}}]}`,
			"is not the borrower of loan"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.post(t, http.MethodPost, tc.path, w, "k-"+tc.name, tc.body)
			if r.status != http.StatusUnauthorized || !strings.Contains(r.message(t), tc.want) {
				t.Errorf("%d %s, want 401 %q", r.status, r.body, tc.want)
			}
		})
	}
	_, err := e.market.UpdateStrategy(e.ctx, "k-client", market.StrategyUpdateRequest{Strategy: a(ids.KindStrategy, "gamma"),
		UpdateParams: &market.UpdateParams{OriginationsEnabled: ptr(false)}})
	if !errors.Is(err, api.ErrUnauthorized) {
		t.Errorf("client sees %v, want ErrUnauthorized", err)
	}
}

func TestBadRequests(t *testing.T) {
	e := newEnv(t, Options{})
	a := func(kind, name string) string { return e.addr(t, kind, name).String() }
	w := testWallet().String()
	loan, posA := a(ids.KindLoan, "repay-me"), a(ids.KindPosition, "pos-a")
	repay := func(params string) string {
		return `{"loan":"` + loan + `","steps":[{"type":"repay","params":` + params + `}]}`
	}
	transfer := func(lower, upper string) string {
		return `{"loan":"` + a(ids.KindLoan, "rebalance-me") + `","positionMint":"` + posA + `","slippageDecimals":0.5,"transferParams":{"collateralIndex":0,` +
			`"liquidityAmount":500000000000,"tickLowerIndex":` + lower + `,"tickUpperIndex":` + upper + `,"transferParams":{"Liquidity":{"slippageToleranceBps":50}}}}`
	}
	earn := a(ids.KindEarn, "usdc-earn")
	tests := []struct {
		name, path, wallet, body, want string
	}{
		{"no body", "markets/loans/info", "", ``, "a JSON request body is required"},
		{"malformed", "markets/loans/info", "", `{"page":`, "malformed JSON body"},
		{"unknown field", "markets/loans/info", "", `{"pgae":1}`, `unknown field "pgae"`},
		{"wrong type", "markets/loans/info", "", `{"page":"one"}`, "page"},
		{"negative page", "markets/loans/info", "", `{"page":-1}`, "page must not be negative (got -1)"},
		{"missing wallet header", "markets/creditbook/build", "", repay(`{}`), "user-wallet header is required"},
		{"missing loan", "markets/creditbook/build", w, `{"steps":[]}`, "loan is required"},
		{"unknown loan", "markets/creditbook/build", w, `{"loan":"` + a(ids.KindStrategy, "beta") + `","steps":[]}`, "unknown loan"},
		{"no steps", "markets/creditbook/build", w, `{"loan":"` + loan + `","steps":[]}`, "steps must hold at least one step"},
		{"unknown step type", "markets/creditbook/build", w, `{"loan":"` + loan + `","steps":[{"type":"borrow","params":{}}]}`,
			`steps[0].type "borrow" is not a step type`},
		{"negative amount", "markets/creditbook/build", w, repay(`{"repayParams":[{"amount":-5,"ledgerIndex":0,"repayAll":false}]}`),
			"steps[0].params.repayParams[0].amount must not be negative (got -5)"},
		{"zero amount", "markets/creditbook/build", w, repay(`{"repayParams":[{"amount":0,"ledgerIndex":0,"repayAll":false}]}`), "must be positive"},
		{"unknown ledger", "markets/creditbook/build", w, repay(`{"repayParams":[{"amount":5,"ledgerIndex":3,"repayAll":false}]}`), "no such ledger"},
		{"unknown position", "markets/creditbook/collateral/dex-a/transfer_position", w,
			strings.Replace(transfer("-19130", "-18900"), posA, a(ids.KindMint, "SOL"), 1), "unknown position"},
		{"misaligned range", "markets/creditbook/collateral/dex-a/transfer_position", w, transfer("-19135", "-18900"),
			"not aligned to the pool's tick spacing 10"},
		{"wrong dex", "markets/creditbook/collateral/dex-b/claim_fees", w,
			`{"loan":"` + a(ids.KindLoan, "rebalance-me") + `","positionMint":"` + posA + `"}`, "is a dex-a position, not dex-b"},
		{"unknown strategy", "markets/strategy/withdraw", w, `{"strategy":"` + loan + `","amount":1,"withdrawAll":false}`, "unknown strategy"},
		{"withdraw too much", "markets/strategy/withdraw", w, `{"strategy":"` + a(ids.KindStrategy, "alpha") + `","amount":60000000001,"withdrawAll":false}`,
			"exceeds the strategy's idle principal 60000000000"},
		{"update nothing", "markets/strategy/update", w, `{"strategy":"` + a(ids.KindStrategy, "alpha") + `"}`, "the update changes nothing"},
		{"update unknown collateral", "markets/strategy/update", w, `{"strategy":"` + a(ids.KindStrategy, "alpha") +
			`","collateralTerms":{"updateCollateral":{"` + a(ids.KindMint, "JTO") + `":{"apyUpdate":{"{\"durationType\":0,\"duration\":7}":"1"}}}}}`,
			"is not in the strategy's terms"},
		{"unknown request", "gateway/earn/vaults/withdraw_claim/tx", w, `{"address":"` + earn + `","wallet":"` + w + `","requestId":"` + loan + `"}`,
			"unknown withdrawal request"},
		{"request not filled", "gateway/earn/vaults/withdraw_claim/tx", w, `{"address":"` + earn + `","wallet":"` + w + `","requestId":"` +
			a(ids.KindRequest, "usdc-earn/r-partial") + `"}`, "only a fully filled request can be claimed"},
		{"claim without request id", "gateway/earn/vaults/withdraw_claim/tx", w, `{"address":"` + earn + `","wallet":"` + w + `"}`, "requestId is required"},
		{"holders without mint", "markets/collateral/holders/historical", "", `{"rangeStart":1,"rangeEnd":2,"pdas":false}`, "mint is required"},
		{"holders empty range", "markets/collateral/holders/historical", "", `{"mint":"` + loan + `","rangeStart":5,"rangeEnd":5,"pdas":false}`,
			"must be after rangeStart"},
		{"unknown earn vault", "gateway/earn/vaults/position", "", `{"address":"` + loan + `","wallet":"` + w + `"}`, "unknown earn vault"},
		{"bad provider", "gateway/earn/vaults/withdraw_queue", "", `{"address":"` + earn + `","provider":"provider-z"}`, `provider "provider-z" is not supported`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.post(t, http.MethodPost, tc.path, tc.wallet, "", tc.body)
			if r.status != http.StatusBadRequest || !strings.Contains(r.message(t), tc.want) {
				t.Errorf("%d %s, want 400 containing %q", r.status, r.body, tc.want)
			}
			if r.header.Get("x-request-id") == "" {
				t.Errorf("no x-request-id")
			}
		})
	}
}

func TestUnknownRouteHookAndRequestIDs(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	e := newEnv(t, Options{OnUnknownRoute: func(method, path string) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, method+" "+path)
	}})
	nf := e.post(t, http.MethodPost, "markets/nothing", "", "", `{}`)
	get := e.post(t, http.MethodGet, "markets/loans/info", "", "", ``)
	ok := e.post(t, http.MethodPost, "markets/loans/info", "", "", `{}`)
	if nf.status != 404 || !strings.Contains(nf.message(t), "no route POST /v1/markets/nothing") {
		t.Errorf("unknown route: %d %s", nf.status, nf.body)
	}
	if get.status != 405 || get.header.Get("Allow") != "POST" {
		t.Errorf("GET: %d %s", get.status, get.body)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != "POST /v1/markets/nothing" || seen[1] != "GET /v1/markets/loans/info" {
		t.Errorf("hook saw %v", seen)
	}
	ids := map[string]bool{nf.header.Get("x-request-id"): true, get.header.Get("x-request-id"): true, ok.header.Get("x-request-id"): true}
	if len(ids) != 3 || ids[""] {
		t.Errorf("request ids %v, want three distinct", ids)
	}
}
