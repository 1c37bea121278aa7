package market

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	json "github.com/go-json-experiment/json/v1"
)

// WithdrawalQueueFields names the members of the withdrawal-queue answer. The spec does not show that
// answer, so every name is an assumption (docs/assumptions.md M-24) that a deployment can override.
// An empty member takes its default from DefaultWithdrawalQueueFields.
type WithdrawalQueueFields struct {
	// Requests is the answer's list of requests. Default "requests".
	Requests string
	// RequestID is a request's id, the request account. Default "requestId".
	RequestID string
	// Wallet is the wallet that opened a request. Default "wallet".
	Wallet string
	// Requested, Filled and Claimed are a request's amounts. Defaults "requestedAmount",
	// "filledAmount" and "claimedAmount".
	Requested string
	Filled    string
	Claimed   string
	// Cancelled says a request was cancelled. Default "cancelled".
	Cancelled string
	// CreatedTime is when a request was opened. Default "createdTime".
	CreatedTime string
}

// DefaultWithdrawalQueueFields returns the assumed member names, those of WithdrawalQueue's JSON tags.
func DefaultWithdrawalQueueFields() WithdrawalQueueFields {
	return WithdrawalQueueFields{
		Requests:    "requests",
		RequestID:   "requestId",
		Wallet:      "wallet",
		Requested:   "requestedAmount",
		Filled:      "filledAmount",
		Claimed:     "claimedAmount",
		Cancelled:   "cancelled",
		CreatedTime: "createdTime",
	}
}

// WithDefaults returns f with empty members set to their defaults.
func (f WithdrawalQueueFields) WithDefaults() WithdrawalQueueFields {
	d := DefaultWithdrawalQueueFields()
	for _, m := range []struct {
		v   *string
		def string
	}{
		{&f.Requests, d.Requests}, {&f.RequestID, d.RequestID}, {&f.Wallet, d.Wallet},
		{&f.Requested, d.Requested}, {&f.Filled, d.Filled}, {&f.Claimed, d.Claimed},
		{&f.Cancelled, d.Cancelled}, {&f.CreatedTime, d.CreatedTime},
	} {
		if *m.v == "" {
			*m.v = m.def
		}
	}
	return f
}

// requestMembers returns the names of a request's members, by the Go name of each.
func (f WithdrawalQueueFields) requestMembers() []struct{ field, name string } {
	return []struct{ field, name string }{
		{"request_id", f.RequestID}, {"wallet", f.Wallet}, {"requested", f.Requested}, {"filled", f.Filled},
		{"claimed", f.Claimed}, {"cancelled", f.Cancelled}, {"created_time", f.CreatedTime},
	}
}

// Validate checks defaulted names: each a plain JSON member name (ValidMemberName) and a request's
// members all different, so that no member of the answer is read as two things.
func (f WithdrawalQueueFields) Validate() error {
	var errs []error
	switch {
	case !ValidMemberName(f.Requests):
		errs = append(errs, fmt.Errorf("requests %q is not a plain JSON member name", Echo(f.Requests)))
	case f.Requests == "address":
		errs = append(errs, errors.New(`requests must not be "address", the queue's own member`))
	}
	seen := map[string]string{}
	for _, m := range f.requestMembers() {
		switch other, dup := seen[m.name]; {
		case !ValidMemberName(m.name):
			errs = append(errs, fmt.Errorf("%s %q is not a plain JSON member name", m.field, Echo(m.name)))
		case dup:
			errs = append(errs, fmt.Errorf("%s and %s are both %q", other, m.field, m.name))
		}
		seen[m.name] = m.field
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("withdrawal queue fields: %w", err)
	}
	return nil
}

// ValidMemberName reports whether name is a plain JSON member name: not empty, at most 64 characters,
// printable, without spaces, dots, quotes or backslashes (a dot would read as a path, which the
// decoding does not follow).
func ValidMemberName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for _, c := range name {
		if !unicode.IsPrint(c) || unicode.IsSpace(c) || strings.ContainsRune(`."\`, c) {
			return false
		}
	}
	return true
}

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
