package api

import (
	"reflect"
	"strings"
	"testing"

	"github.com/keeper-project/keeper/keeper/market"
)

// renamedQueue is a withdrawal-queue answer under other member names than keeper assumes.
const renamedQueue = `{"address":"EarnVault","items":[{"id":"Req1","owner":"W","amount":"500","filled":"500","claimed":"0",` +
	`"isCancelled":false,"ts":1700000000}]}`

// renamedQueueFields names renamedQueue's members.
var renamedQueueFields = market.WithdrawalQueueFields{Requests: "items", RequestID: "id", Wallet: "owner", Requested: "amount",
	Filled: "filled", Claimed: "claimed", Cancelled: "isCancelled", CreatedTime: "ts"}

// TestWithdrawalQueueByConfiguredFields reads a queue answered under other member names: with
// Options.QueueFields naming them it decodes; with the defaults it is a decode error, never an empty queue.
func TestWithdrawalQueueByConfiguredFields(t *testing.T) {
	f := &fakeAPI{respond: always(reply{Body: renamedQueue})}
	c := newServer(t, f, func(o *Options) { o.QueueFields = renamedQueueFields })
	got, err := c.WithdrawalQueue(bg(t), market.WithdrawalQueueRequest{Address: "EarnVault"})
	if err != nil {
		t.Fatal(err)
	}
	want := &market.WithdrawalQueue{Address: "EarnVault", Requests: []market.WithdrawalRequest{{RequestID: "Req1", Wallet: "W",
		RequestedAmount: 500, FilledAmount: 500, CreatedTime: 1700000000}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	d := newServer(t, &fakeAPI{respond: always(reply{Body: renamedQueue})}, nil)
	q, err := d.WithdrawalQueue(bg(t), market.WithdrawalQueueRequest{Address: "EarnVault"})
	if _, ok := isAPIError(err); !ok || !strings.Contains(err.Error(), "decode") || !strings.Contains(err.Error(), `"requests"`) {
		t.Errorf("default fields on a renamed answer: %+v, %v; want a decode error naming requests", q, err)
	}
}

// TestFieldsAreValidated refuses options naming a member with a dot or two members alike.
func TestFieldsAreValidated(t *testing.T) {
	for _, f := range []market.WithdrawalQueueFields{{RequestID: "a.b"}, {Filled: "requestedAmount"}, {Requests: " "}} {
		_, err := New(Options{BaseURL: "http://127.0.0.1/v1", QueueFields: f})
		if err == nil || !strings.Contains(err.Error(), "withdrawal queue fields") {
			t.Errorf("%+v: err = %v, want the fields refused", f, err)
		}
	}
}
