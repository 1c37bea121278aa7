package market

import (
	"bytes"
	"errors"
	"fmt"

	json "github.com/go-json-experiment/json/v1"
)

// errNullAnswer is the decode error of an answer, or a required member of one, that is JSON null.
var errNullAnswer = errors.New("the answer is null")

// answerChecker is a decoded answer that can say whether every member it requires was present. A
// listing that is absent or null is an error; an empty listing is a valid answer.
type answerChecker interface {
	checkAnswer() error
}

// isNull reports whether b is the JSON literal null, ignoring surrounding white space.
func isNull(b []byte) bool {
	return bytes.Equal(bytes.TrimSpace(b), []byte("null"))
}

// answerDecoder is an answer that decodes a whole body itself, validating it as it goes. Handing it
// the body directly spares encoding/json's validation and skip passes over the whole body that
// json.Unmarshal makes before it calls a custom decoder: a third of the CPU of a loans page.
type answerDecoder interface {
	decodeAnswer(data []byte) error
}

// DecodeAnswer decodes a 2xx body into out strictly: a null body is an error, and out's own
// checks of required members run after decoding.
func DecodeAnswer(data []byte, out any) error {
	if isNull(data) {
		return errNullAnswer
	}
	var err error
	if d, ok := out.(answerDecoder); ok {
		err = d.decodeAnswer(data)
	} else {
		err = json.Unmarshal(data, out)
	}
	if err != nil {
		return err
	}
	if c, ok := out.(answerChecker); ok {
		return c.checkAnswer()
	}
	return nil
}

// StrictList is a JSON array whose elements may not be null. It decodes element by element so that a
// null element, which encoding/json would leave as a zero value, is refused with its index.
type StrictList[T any] []T

// UnmarshalJSON decodes an array of T, refusing null (the array or any element).
func (l *StrictList[T]) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return errNullAnswer
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	items := make([]T, len(raw))
	for i, r := range raw {
		if isNull(r) {
			return fmt.Errorf("element %d is null", i)
		}
		if err := json.Unmarshal(r, &items[i]); err != nil {
			return fmt.Errorf("element %d: %w", i, err)
		}
	}
	*l = items
	return nil
}

// requireMember returns an error naming member when present is false: the member was absent or
// null where the answer must carry it (possibly empty).
func requireMember(member string, present bool) error {
	if present {
		return nil
	}
	return fmt.Errorf("required member %q is missing or null", member)
}

// requireEach checks that every element of items names itself (id returns the identifying member's
// value): an element without it is a record keeper cannot act on.
func requireEach[T any](list string, items []T, member string, id func(*T) string) error {
	for i := range items {
		if id(&items[i]) == "" {
			return fmt.Errorf("%s[%d]: required member %q is missing or empty", list, i, member)
		}
	}
	return nil
}

// decodeList decodes a listing whose shape is not shown by the spec: a bare array of T, or an object
// holding the array under the first of keys present.
func decodeList[T any](b []byte, keys ...string) ([]T, error) {
	b = bytes.TrimSpace(b)
	if isNull(b) {
		return nil, errNullAnswer
	}
	if len(b) > 0 && b[0] == '[' {
		var items StrictList[T]
		if err := json.Unmarshal(b, &items); err != nil {
			return nil, err
		}
		return items, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	for _, k := range keys {
		raw, ok := obj[k]
		if !ok {
			continue
		}
		var items StrictList[T]
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		return items, nil
	}
	return nil, fmt.Errorf("want an array or an object with one of %q", keys)
}

// LoopList is the E12 response: a bare array of loop records or an object holding them.
type LoopList []Loop

// UnmarshalJSON decodes a bare array or an object with items, loops or loopInfos.
func (l *LoopList) UnmarshalJSON(b []byte) error {
	items, err := decodeList[Loop](b, "items", "loops", "loopInfos")
	if err != nil {
		return fmt.Errorf("loop info: %w", err)
	}
	*l = items
	return nil
}
