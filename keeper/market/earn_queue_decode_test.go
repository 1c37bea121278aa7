package market

import (
	"reflect"
	"strings"
	"testing"
)

// renamedFields are member names a deployment might answer the withdrawal queue with.
var renamedFields = WithdrawalQueueFields{Requests: "items", RequestID: "id", Wallet: "owner", Requested: "amount",
	Filled: "filled", Claimed: "claimed", Cancelled: "isCancelled", CreatedTime: "ts"}

// TestWithdrawalQueueAnswerDefaultsMatchTheTags shows that with default names the answer decodes as
// WithdrawalQueue's JSON tags decode it.
func TestWithdrawalQueueAnswerDefaultsMatchTheTags(t *testing.T) {
	body := `{"address":"V","requests":[{"requestId":"R1","wallet":"W","requestedAmount":"500","filledAmount":500,` +
		`"claimedAmount":"0","cancelled":false,"createdTime":1700000000},{"requestId":"R2"}],"other":1}`
	var tags WithdrawalQueue
	if err := DecodeAnswer([]byte(body), &tags); err != nil {
		t.Fatal(err)
	}
	var named WithdrawalQueueAnswer
	if err := DecodeAnswer([]byte(body), &named); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(named.Queue, tags) {
		t.Errorf("by names %+v, by tags %+v", named.Queue, tags)
	}
}

// TestWithdrawalQueueAnswerRenamed decodes an answer under other member names, and refuses it under
// the default names: the list is not where they say.
func TestWithdrawalQueueAnswerRenamed(t *testing.T) {
	body := `{"address":"V","items":[{"id":"R1","owner":"W","amount":"500","filled":"500","claimed":0,` +
		`"isCancelled":true,"ts":1700000000}]}`
	a := WithdrawalQueueAnswer{Fields: renamedFields}
	if err := DecodeAnswer([]byte(body), &a); err != nil {
		t.Fatal(err)
	}
	want := WithdrawalQueue{Address: "V", Requests: []WithdrawalRequest{{RequestID: "R1", Wallet: "W", RequestedAmount: 500,
		FilledAmount: 500, Cancelled: true, CreatedTime: 1700000000}}}
	if !reflect.DeepEqual(a.Queue, want) {
		t.Errorf("got %+v, want %+v", a.Queue, want)
	}
	var d WithdrawalQueueAnswer
	if err := DecodeAnswer([]byte(body), &d); err == nil || !strings.Contains(err.Error(), `"requests"`) {
		t.Errorf("default names on a renamed answer: err = %v, want the missing requests named", err)
	}
}

// TestWithdrawalQueueAnswerStrict lists answers refused under the renamed members, each with the
// configured name in the error.
func TestWithdrawalQueueAnswerStrict(t *testing.T) {
	cases := []struct{ body, want string }{
		{`null`, "null"},
		{`{}`, `"items" is missing`},
		{`{"items":null}`, `"items" is missing`},
		{`{"items":{}}`, "items:"},
		{`{"items":[null]}`, "items[0]: the answer is null"},
		{`{"items":[{"requestId":"R"}]}`, `items[0]: required member "id" is missing`},
		{`{"items":[{"id":null}]}`, `items[0]: required member "id" is missing`},
		{`{"items":[{"id":""}]}`, `items[0]: required member "id" is missing or empty`},
		{`{"items":[{"id":"R","amount":"x"}]}`, "items[0]: amount:"},
		{`{"items":[{"id":"R","isCancelled":"yes"}]}`, "items[0]: isCancelled:"},
		{`{"address":5,"items":[]}`, "address:"},
		{`[]`, "cannot unmarshal"},
	}
	for _, tc := range cases {
		a := WithdrawalQueueAnswer{Fields: renamedFields}
		err := DecodeAnswer([]byte(tc.body), &a)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to say %q", tc.body, err, tc.want)
		}
	}
	a := WithdrawalQueueAnswer{Fields: renamedFields}
	if err := DecodeAnswer([]byte(`{"items":[]}`), &a); err != nil || a.Queue.Requests == nil {
		t.Errorf("an empty list: %v, %#v; want an answer with no requests", err, a.Queue.Requests)
	}
}

// TestWithdrawalQueueFieldsValidate refuses names that are not plain member names and a request's
// members that share a name.
func TestWithdrawalQueueFieldsValidate(t *testing.T) {
	if err := renamedFields.WithDefaults().Validate(); err != nil {
		t.Errorf("renamed: %v", err)
	}
	if err := (WithdrawalQueueFields{}).WithDefaults().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	bad := []struct {
		f    WithdrawalQueueFields
		want string
	}{
		{WithdrawalQueueFields{RequestID: "request.id"}, `request_id "request.id" is not a plain JSON member name`},
		{WithdrawalQueueFields{Wallet: "the wallet"}, `wallet "the wallet" is not`},
		{WithdrawalQueueFields{Requests: "a\tb"}, `requests "a\tb"`},
		{WithdrawalQueueFields{Requests: "address"}, `must not be "address"`},
		{WithdrawalQueueFields{Filled: "requestedAmount"}, `requested and filled are both "requestedAmount"`},
		{WithdrawalQueueFields{Claimed: strings.Repeat("x", 65)}, `claimed "xxx`},
	}
	for _, tc := range bad {
		err := tc.f.WithDefaults().Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want it to say %q", tc.f, err, tc.want)
		}
	}
}
