package api

import (
	"errors"
	"github.com/keeper-project/keeper/keeper/market"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string // substring of the error; "" means success
	}{
		{"minimal", Options{BaseURL: "http://127.0.0.1:7070/v1"}, ""},
		{"trailing slash", Options{BaseURL: "https://api.example/prefix/v1/"}, ""},
		{"keyed query kept", Options{BaseURL: "https://api.example/v1?key=abc"}, ""},
		{"empty", Options{}, "base URL is required"},
		{"no v1", Options{BaseURL: "http://h/v2"}, "must end in /v1"},
		{"v1 in the middle", Options{BaseURL: "http://h/v1/markets"}, "must end in /v1"},
		{"scheme", Options{BaseURL: "ftp://h/v1"}, "scheme must be http or https"},
		{"no host", Options{BaseURL: "http:///v1"}, "no host"},
		{"fragment", Options{BaseURL: "http://h/v1#x"}, "fragment"},
		{"negative timeout", Options{BaseURL: "http://h/v1", Timeout: -time.Second}, "timeout must be positive"},
		{"bad wallet", Options{BaseURL: "http://h/v1", Wallet: "not-base58!"}, "wallet"},
		{"short wallet", Options{BaseURL: "http://h/v1", Wallet: "abc"}, "wallet"},
		{"bad payer", Options{BaseURL: "http://h/v1", Payer: "0OIl"}, "payer"},
		{"auth without header", Options{BaseURL: "http://h/v1", AuthValue: "v"}, "auth header name"},
		{"bad header name", Options{BaseURL: "http://h/v1", WalletHeader: "user wallet"}, "header names"},
		{"negative rate", Options{BaseURL: "http://h/v1", RateLimit: RateLimit{PerSecond: -1}}, "rate limit"},
		{"negative attempts", Options{BaseURL: "http://h/v1", Retry: RetryPolicy{MaxAttempts: -1}}, "max attempts"},
		{"backoff order", Options{BaseURL: "http://h/v1", Retry: RetryPolicy{BaseBackoff: time.Second, MaxBackoff: time.Millisecond}}, "backoff"},
		{"bad segment", Options{BaseURL: "http://h/v1", Paths: Paths{DexA: "dex/a"}}, "DexA"},
		{"dotdot earn path", Options{BaseURL: "http://h/v1", Paths: Paths{EarnPosition: "earn/../x"}}, "EarnPosition"},
		{"absolute earn path", Options{BaseURL: "http://h/v1", Paths: Paths{EarnWithdrawQueue: "/earn/q"}}, "EarnWithdrawQueue"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.opts)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "market: options: ") {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	c, err := New(Options{BaseURL: "http://h/v1"})
	if err != nil {
		t.Fatal(err)
	}
	o := c.opts
	if o.Timeout != DefaultTimeout || o.UserAgent != "keeper/dev" || o.WalletHeader != "user-wallet" ||
		o.PayerHeader != "payer" || o.MaxResponseBytes != DefaultMaxResponseBytes || o.Retry.MaxAttempts != 4 ||
		o.Retry.BaseBackoff != DefaultBaseBackoff || o.Retry.MaxBackoff != DefaultMaxBackoff || o.Retry.Rand == nil {
		t.Errorf("defaults = %+v", o)
	}
	if o.Paths != DefaultPaths() || c.earn.provider != "provider-a" {
		t.Errorf("paths = %+v", o.Paths)
	}
	if c.t.limiter != nil {
		t.Error("no rate limit configured, but a limiter exists")
	}
	if c.t.hc.CheckRedirect == nil {
		t.Error("default client follows redirects")
	}
}

func TestOverriddenPathsAndHeaders(t *testing.T) {
	f := &fakeAPI{respond: always(reply{Body: `{"message":"AQ","signatures":[]}`})}
	c := newServer(t, f, func(o *Options) {
		o.Paths = Paths{DexA: "dex-x", DexB: "dex-y", Gateway: "gw", Provider: "provider-b",
			EarnPosition: "earn/v2/position"}
		o.WalletHeader, o.PayerHeader, o.Payer, o.UserAgent = "x-wallet", "x-payer", "", "custom/9"
	})
	if _, err := c.TransferPosition(bg(t), testKey, market.TransferPositionRequest{Loan: "L", PositionMint: "P",
		TransferParams: market.TransferParams{TickLowerIndex: 1, TickUpperIndex: 2}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ClaimFees(bg(t), testKey, market.ClaimFeesRequest{Loan: "L", PositionMint: "P"}); err != nil {
		t.Fatal(err)
	}
	f.respond = always(reply{Body: `{"action":"withdrawClaim","txBase64s":["AQ"]}`})
	if _, err := c.ClaimEarnWithdrawal(bg(t), testKey, market.WithdrawClaimRequest{Address: "A", Wallet: "W", RequestID: "R"}); err != nil {
		t.Fatal(err)
	}
	f.respond = always(reply{Body: `{"openWithdrawalRequests":[]}`})
	if _, err := c.EarnPosition(bg(t), market.EarnPositionRequest{Address: "A", Wallet: "W"}); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	wantPaths := []string{"/markets/creditbook/collateral/dex-x/transfer_position",
		"/markets/creditbook/collateral/dex-y/claim_fees", "/gw/earn/vaults/withdraw_claim/tx", "/gw/earn/v2/position"}
	for i, want := range wantPaths {
		if reqs[i].Path != want {
			t.Errorf("request %d path = %s, want %s", i, reqs[i].Path, want)
		}
	}
	r := reqs[0]
	if r.Header.Get("x-wallet") != testWallet || r.Header.Get("User-Wallet") != "" || r.Header.Get("x-payer") != "" ||
		r.Header.Get("User-Agent") != "custom/9" {
		t.Errorf("headers = %v", r.Header)
	}
	if !strings.Contains(reqs[2].Body, `"provider":"provider-b"`) {
		t.Errorf("claim body %s lacks the configured provider", reqs[2].Body)
	}
}

func TestKeyedBaseURLQueryKept(t *testing.T) {
	var gotQuery string
	f := &fakeAPI{respond: always(reply{Body: `[]`})}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQuery = r.URL.RawQuery
		mounted(f).ServeHTTP(w, r)
	})
	c, err := New(Options{BaseURL: "http://market.test/v1/?api-key=k123", HTTPClient: &http.Client{Transport: &handlerTransport{h: h}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Loops(bg(t), market.LoopsQuery{}); err != nil {
		t.Fatal(err)
	}
	if gotQuery != "api-key=k123" || f.requests()[0].Path != "/markets/loop/info" {
		t.Errorf("query %q path %q", gotQuery, f.requests()[0].Path)
	}
}

func TestRequestChecks(t *testing.T) {
	f := &fakeAPI{respond: always(reply{Body: `{}`})}
	c := newServer(t, f, nil)
	noWallet := newServer(t, f, func(o *Options) { o.Wallet = "" })
	ctx := bg(t)
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"empty key", func() error {
			_, err := c.ClaimFees(ctx, "", market.ClaimFeesRequest{Loan: "L", PositionMint: "P"})
			return err
		}, "idempotency key"},
		{"key with space", func() error {
			_, err := c.ClaimFees(ctx, "a b", market.ClaimFeesRequest{Loan: "L", PositionMint: "P"})
			return err
		}, "visible ASCII"},
		{"long key", func() error {
			_, err := c.ClaimFees(ctx, market.IdempotencyKey(strings.Repeat("k", 256)), market.ClaimFeesRequest{Loan: "L", PositionMint: "P"})
			return err
		}, "1 to 255"},
		{"no wallet", func() error {
			_, err := noWallet.ClaimFees(ctx, "k", market.ClaimFeesRequest{Loan: "L", PositionMint: "P"})
			return err
		}, "no wallet configured"},
		{"E1 strategy", func() error { _, err := c.UpdateStrategy(ctx, "k", market.StrategyUpdateRequest{}); return err }, "strategy is required"},
		{"E1 bad duration key", func() error {
			_, err := c.UpdateStrategy(ctx, "k", market.StrategyUpdateRequest{Strategy: "S", CollateralTerms: &market.CollateralTerms{
				AddCollateral: map[string]market.AddCollateral{"M": {DurationsAndApys: map[string]string{"7d": "1"}}}}})
			return err
		}, "duration key"},
		{"E1 empty durations", func() error {
			_, err := c.UpdateStrategy(ctx, "k", market.StrategyUpdateRequest{Strategy: "S", CollateralTerms: &market.CollateralTerms{
				AddCollateral: map[string]market.AddCollateral{"M": {}}}})
			return err
		}, "durationsAndApys is required"},
		{"E1 negative fee", func() error {
			_, err := c.UpdateStrategy(ctx, "k", market.StrategyUpdateRequest{Strategy: "S", UpdateParams: &market.UpdateParams{InterestFee: new(int64(-1))}})
			return err
		}, "interestFee must be >= 0"},
		{"E1 negative ltv", func() error {
			_, err := c.UpdateStrategy(ctx, "k", market.StrategyUpdateRequest{Strategy: "S", CollateralTerms: &market.CollateralTerms{
				UpdateCollateral: map[string]market.CollateralParamsUpdate{"M": {LtvUpdate: &market.ParsedUpdateAssetData{AssetIdentifier: "M", Ltv: new(int32(-5))}}}}})
			return err
		}, "ltv must be >= 0"},
		{"E1 negative remove duration", func() error {
			_, err := c.UpdateStrategy(ctx, "k", market.StrategyUpdateRequest{Strategy: "S", CollateralTerms: &market.CollateralTerms{
				RemoveCollateral: map[string]market.RemoveCollateral{"M": {Durations: []market.StrategyDuration{{DurationType: market.DurationDays, Duration: -1}}}}}})
			return err
		}, "must be >= 0"},
		{"E2 no steps", func() error { _, err := c.BuildLoan(ctx, "k", market.BuildLoanRequest{Loan: "L"}); return err }, "steps is required"},
		{"E4 tick order", func() error {
			_, err := c.TransferPosition(ctx, "k", market.TransferPositionRequest{Loan: "L", PositionMint: "P",
				TransferParams: market.TransferParams{TickLowerIndex: 5, TickUpperIndex: 5}})
			return err
		}, "tickLowerIndex 5 must be below"},
		{"E9 zero amount", func() error {
			_, err := c.WithdrawFromStrategy(ctx, "k", market.WithdrawStrategyRequest{Strategy: "S"})
			return err
		}, "amount must be positive"},
		{"E10 request id", func() error {
			_, err := c.ClaimEarnWithdrawal(ctx, "k", market.WithdrawClaimRequest{Address: "A", Wallet: "W"})
			return err
		}, "requestId is required"},
		{"E3 negative page", func() error { _, err := c.LoansInfo(ctx, market.LoansQuery{Page: new(-1)}); return err }, "page must be >= 0"},
		{"E6 no principal", func() error { _, err := c.BestQuotes(ctx, market.QuoteRequest{}); return err }, "principalMint is required"},
		{"E7 range", func() error {
			_, err := c.HistoricalHolders(ctx, market.HoldersRequest{Mint: "M", RangeStart: 10, RangeEnd: 5})
			return err
		}, "rangeEnd is before rangeStart"},
		{"withdraw request amount", func() error {
			_, err := c.RequestEarnWithdrawal(ctx, "k", market.EarnWithdrawRequest{Address: "A", Wallet: "W"})
			return err
		}, "amount must be positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if !errors.Is(err, market.ErrInvalidRequest) || !strings.Contains(err.Error(), tc.want) || !isTerminal(err) {
				t.Errorf("err = %v, want market.ErrInvalidRequest containing %q", err, tc.want)
			}
		})
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests reached the server; refused requests must not be sent", n)
	}
}
