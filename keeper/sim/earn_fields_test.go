package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/keeper-project/keeper/keeper/market"
	"github.com/keeper-project/keeper/keeper/market/api"
	"github.com/keeper-project/keeper/keeper/sim/ids"
)

// TestQueueAnswerUnderOtherNames has the scenario rename the withdrawal queue's members: a client
// reading the same names decodes the queue as before; one reading the assumed names gets a decode
// error.
func TestQueueAnswerUnderOtherNames(t *testing.T) {
	sc, err := ParseScenario("renamed.yaml", append(DefaultScenarioYAML(),
		"\nmarket:\n  withdrawal_queue_fields: { requests: items, request_id: id, filled: filled }\n"...))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{Scenario: sc})
	e.advance(t, 20*time.Second)
	vault := e.addr(t, ids.KindEarn, "usdc-earn").String()
	req := market.WithdrawalQueueRequest{Address: vault, Wallet: testWallet().String()}
	if q, err := e.market.WithdrawalQueue(e.ctx, req); err == nil || !strings.Contains(err.Error(), `"requests"`) {
		t.Errorf("assumed names on a renamed answer: %+v, %v; want a decode error naming requests", q, err)
	}
	mc, err := api.New(api.Options{BaseURL: e.urls.Market, Retry: api.RetryPolicy{MaxAttempts: 1},
		QueueFields: market.WithdrawalQueueFields{Requests: "items", RequestID: "id", Filled: "filled"}})
	if err != nil {
		t.Fatal(err)
	}
	q, err := mc.WithdrawalQueue(e.ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	full := e.addr(t, ids.KindRequest, "usdc-earn/r-full").String()
	if len(q.Requests) != 2 || q.Requests[0].RequestID != full || q.Requests[0].State() != market.WithdrawalFilled ||
		q.Requests[0].Wallet != testWallet().String() || q.Requests[0].RequestedAmount != 300_000_000 {
		t.Errorf("queue by the renamed members: %+v", q)
	}
}

// TestQueueFieldsAreChecked refuses a scenario naming two of a request's members alike.
func TestQueueFieldsAreChecked(t *testing.T) {
	_, err := ParseScenario("bad.yaml", append(DefaultScenarioYAML(),
		"\nmarket:\n  withdrawal_queue_fields: { filled: requestedAmount }\n"...))
	if err == nil || !strings.Contains(err.Error(), `requested and filled are both "requestedAmount"`) {
		t.Errorf("err = %v, want the duplicate name refused", err)
	}
}
