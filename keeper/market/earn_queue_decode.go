package market

import (
	"encoding/json"
	"fmt"
)

// WithdrawalQueueAnswer decodes the withdrawal-queue answer by the member names in Fields (empty
// names take their defaults), as strictly as WithdrawalQueue decodes the default names: the list of
// requests and each request's id are required (absent or null is an error, an empty list is an
// answer), every element must be an object, and a member of the wrong type is an error. Member names
// are matched exactly. The queue's own "address" is not renamed. Queue holds the decoded answer.
type WithdrawalQueueAnswer struct {
	Fields WithdrawalQueueFields
	Queue  WithdrawalQueue
}

// decodeAnswer decodes a whole body into a.Queue.
func (a *WithdrawalQueueAnswer) decodeAnswer(data []byte) error {
	f := a.Fields.WithDefaults()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return err
	}
	var q WithdrawalQueue
	if raw, ok := top["address"]; ok {
		if err := json.Unmarshal(raw, &q.Address); err != nil {
			return fmt.Errorf("address: %w", err)
		}
	}
	raw, ok := top[f.Requests]
	if !ok || isNull(raw) {
		return requireMember(f.Requests, false)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return fmt.Errorf("%s: %w", f.Requests, err)
	}
	q.Requests = make([]WithdrawalRequest, len(items))
	for i, item := range items {
		if err := f.decodeRequest(item, &q.Requests[i]); err != nil {
			return fmt.Errorf("%s[%d]: %w", f.Requests, i, err)
		}
	}
	a.Queue = q
	return nil
}

// decodeRequest decodes one element of the list into r by the names in f. Absent optional members
// keep their zero value, as encoding/json leaves them.
func (f WithdrawalQueueFields) decodeRequest(b json.RawMessage, r *WithdrawalRequest) error {
	if isNull(b) {
		return errNullAnswer
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	if id, ok := obj[f.RequestID]; !ok || isNull(id) {
		return requireMember(f.RequestID, false)
	}
	for _, m := range []struct {
		name string
		into any
	}{
		{f.RequestID, &r.RequestID}, {f.Wallet, &r.Wallet}, {f.Requested, &r.RequestedAmount},
		{f.Filled, &r.FilledAmount}, {f.Claimed, &r.ClaimedAmount}, {f.Cancelled, &r.Cancelled},
		{f.CreatedTime, &r.CreatedTime},
	} {
		raw, ok := obj[m.name]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, m.into); err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
	}
	return nil
}

// checkAnswer requires an id on every request, named as the answer names it.
func (a *WithdrawalQueueAnswer) checkAnswer() error {
	f := a.Fields.WithDefaults()
	if err := requireMember(f.Requests, a.Queue.Requests != nil); err != nil {
		return err
	}
	return requireEach(f.Requests, a.Queue.Requests, f.RequestID, func(r *WithdrawalRequest) string { return r.RequestID })
}
