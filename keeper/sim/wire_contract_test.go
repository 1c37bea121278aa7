package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/sim/ids"
)

// wireCase is one simulator answer and the client type that reads it.
type wireCase struct {
	name, path string
	body       any
	read       func(raw []byte) error // decodes raw with the client's type and compares (wholeRead)
}

// TestClientReadsTheSimulatorsAnswersWhole: the simulator writes its answers with its own wire types
// (internal/apiwire) and keeper reads them with its own (keeper/market). For one answer of every
// endpoint, the client's type must read the answer whole: decoded by the client and encoded again,
// it is the same JSON, so every member the simulator writes is one the client reads with the same
// value, and every member the client reads is one the simulator writes. Were one side to misname a
// member of the spec, the two would differ here (TestWholeReadCatchesARenamedMember shows it).
func TestClientReadsTheSimulatorsAnswersWhole(t *testing.T) {
	e := newEnv(t, Options{})
	e.advance(t, 20*time.Second) // request r-full is filled
	addr := func(kind, name string) string { return e.addr(t, kind, name).String() }
	usdc, sol := addr(ids.KindMint, "USDC"), addr(ids.KindMint, "SOL")
	cases := []wireCase{
		{"E3 loans-info", "markets/loans/info", market.LoansQuery{IncludePnl: true}, wholeRead[market.LoansPage]},
		{"E2 build-loan", "markets/creditbook/build", market.BuildLoanRequest{Loan: addr(ids.KindLoan, "repay-me"),
			Steps: []market.Step{{Type: market.StepRepay, Params: market.StepParams{Loan: addr(ids.KindLoan, "repay-me"),
				RepayParams: []market.RepayParam{{Amount: 3}}}}}}, wholeRead[market.BuildLoanResponse]},
		{"E5 vault-depositors", "markets/lending_vaults/deposits", market.VaultDepositsQuery{}, wholeRead[[]market.VaultDeposits]},
		{"E6 best-quote", "markets/quote/max", market.QuoteRequest{PrincipalMint: usdc, Duration: 7, DurationType: market.DurationDays,
			CollateralFilter: []market.CollateralFilter{{Amount: 1_000_000_000, AssetData: market.SplAssetData(sol)}}}, wholeRead[[]market.Quote]},
		{"E7 holders", "markets/collateral/holders/historical", market.HoldersRequest{Mint: sol, RangeStart: market.UnixTime(testStart.Unix()),
			RangeEnd: market.UnixTime(testStart.Unix() + 20)}, wholeRead[[]market.CollateralHolder]},
		{"E8 claim-fees", "markets/creditbook/collateral/dex-b/claim_fees", market.ClaimFeesRequest{Loan: addr(ids.KindLoan, "claim-me"),
			PositionMint: addr(ids.KindPosition, "pos-b")}, wholeRead[market.Transaction]},
		{"E9 withdraw-strategy", "markets/strategy/withdraw", market.WithdrawStrategyRequest{Amount: 1, Strategy: addr(ids.KindStrategy, "alpha")},
			wholeRead[market.Transaction]},
		{"E10 withdraw-claim", "gateway/earn/vaults/withdraw_claim/tx", market.WithdrawClaimRequest{Address: addr(ids.KindEarn, "usdc-earn"),
			Wallet: testWallet().String(), RequestID: addr(ids.KindRequest, "usdc-earn/r-full")}, wholeRead[market.EarnTxResponse]},
		{"E11 vaults", "markets/lending_vaults/info", market.VaultsQuery{IncludeRewards: true}, wholeRead[market.VaultsPage]},
		{"E12 loops", "markets/loop/info", market.LoopsQuery{}, wholeRead[market.LoopList]},
		{"earn position", "gateway/earn/vaults/position", market.EarnPositionRequest{Address: addr(ids.KindEarn, "usdc-earn"),
			Wallet: testWallet().String()}, wholeRead[market.EarnPosition]},
		{"withdrawal queue", "gateway/earn/vaults/withdraw_queue", market.WithdrawalQueueRequest{Address: addr(ids.KindEarn, "usdc-earn")},
			wholeRead[market.WithdrawalQueue]},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw := e.answer(t, tc.path, tc.body)
			if a, ok := generic(raw).([]any); ok && len(a) == 0 {
				t.Fatalf("%s answers an empty list: nothing to check", tc.path)
			}
			if err := tc.read(raw); err != nil {
				t.Errorf("%s: the client does not read the simulator's answer whole: %v\nanswer: %s", tc.path, err, raw)
			}
		})
	}
}

// quoteRenamed is a copy of keeper's market.Quote whose reader misnamed one member of the spec's quote
// record (collateralIdentifier as collateralId).
type quoteRenamed struct {
	Amount               market.Amount `json:"amount"`
	Apy                  market.CBPS   `json:"apy"`
	CollateralIdentifier string        `json:"collateralId"`
	Lqt                  market.CBPS   `json:"lqt"`
	Ltv                  market.CBPS   `json:"ltv"`
	Strategy             string        `json:"strategy"`
}

// TestWholeReadCatchesARenamedMember: a copy of the client's quote type that differs from it only by
// one member's JSON name reads the simulator's E6 answer without complaint from encoding/json, and
// the whole-read check refuses it, naming the member; the client's own type passes.
func TestWholeReadCatchesARenamedMember(t *testing.T) {
	real, renamed := reflect.TypeFor[market.Quote](), reflect.TypeFor[quoteRenamed]()
	var differ []string
	for i := range real.NumField() {
		f, g := real.Field(i), renamed.Field(i)
		if f.Name != g.Name || f.Type != g.Type {
			t.Fatalf("quoteRenamed is not a copy of market.Quote: field %d is %s %s, want %s %s", i, g.Name, g.Type, f.Name, f.Type)
		}
		if f.Tag != g.Tag {
			differ = append(differ, f.Name)
		}
	}
	if real.NumField() != renamed.NumField() || len(differ) != 1 {
		t.Fatalf("quoteRenamed differs from market.Quote in %v, want one member's name", differ)
	}
	e := newEnv(t, Options{})
	usdc, sol := e.addr(t, ids.KindMint, "USDC").String(), e.addr(t, ids.KindMint, "SOL").String()
	raw := e.answer(t, "markets/quote/max", market.QuoteRequest{PrincipalMint: usdc, Duration: 7, DurationType: market.DurationDays,
		CollateralFilter: []market.CollateralFilter{{Amount: 1_000_000_000, AssetData: market.SplAssetData(sol)}}})
	var lenient []quoteRenamed
	if err := json.Unmarshal(raw, &lenient); err != nil || len(lenient) == 0 {
		t.Fatalf("encoding/json reads the answer with the renamed copy: %v, %d quotes", err, len(lenient))
	}
	if err := wholeRead[[]market.Quote](raw); err != nil {
		t.Fatalf("the client's own type: %v", err)
	}
	err := wholeRead[[]quoteRenamed](raw)
	if err == nil || !strings.Contains(err.Error(), "collateralId") {
		t.Fatalf("whole read with collateralIdentifier renamed: %v, want a difference at the renamed member", err)
	}
}

// wholeRead decodes raw into a T and reports how T encoded again differs from raw: a member of raw
// the type dropped, one it added, or a value it changed (numbers compared by value).
func wholeRead[T any](raw []byte) error {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	again, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode again: %w", err)
	}
	want, got := generic(raw), generic(again)
	if want == nil || got == nil {
		return fmt.Errorf("not JSON: %s / %s", raw, again)
	}
	return sameJSON("", want, got)
}

// generic decodes JSON into maps, slices and json.Numbers; nil when it is not JSON.
func generic(b []byte) any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}

// sameJSON reports the first difference between two decoded JSON values, by path.
func sameJSON(path string, want, got any) error {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: object read back as %T", path, got)
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range w {
				if !yield(k) {
					return
				}
			}
			for k := range g {
				if _, dup := w[k]; !dup && !yield(k) {
					return
				}
			}
		})
		for _, k := range keys {
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case !inG:
				return fmt.Errorf("%s.%s: written by the simulator, not read by the client", path, k)
			case !inW:
				return fmt.Errorf("%s.%s: read by the client, not written by the simulator", path, k)
			}
			if err := sameJSON(path+"."+k, wv, gv); err != nil {
				return err
			}
		}
		return nil
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("%s: array of %d read back as %v", path, len(w), got)
		}
		for i := range w {
			if err := sameJSON(path+"["+strconv.Itoa(i)+"]", w[i], g[i]); err != nil {
				return err
			}
		}
		return nil
	case json.Number:
		g, ok := got.(json.Number)
		wf, err1 := w.Float64()
		gf, err2 := g.Float64()
		if !ok || err1 != nil || err2 != nil || wf != gf {
			return fmt.Errorf("%s: %v read back as %v", path, w, got)
		}
		return nil
	}
	if !reflect.DeepEqual(want, got) {
		return fmt.Errorf("%s: %v read back as %v", path, want, got)
	}
	return nil
}

// answer posts body as JSON to the simulated market's path (below /v1/) as the wallet and returns
// the answer, failing the test on any status but 200.
func (e *env) answer(t *testing.T, path string, body any) []byte {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	r := e.post(t, http.MethodPost, path, testWallet().String(), "", string(b))
	if r.status != http.StatusOK {
		t.Fatalf("POST %s: %d %s", path, r.status, r.body)
	}
	return r.body
}
