package market

import (
	"bytes"
	"encoding/json"
	"fmt"
)

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
