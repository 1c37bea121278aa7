package apiwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// signedFields are the request fields that may be negative (tick indexes).
var signedFields = []string{"tickLowerIndex", "tickUpperIndex"}

// DecodeBody decodes a JSON request body into v strictly, with errors a client can act on: a missing
// body, malformed JSON, a negative number (naming its field), an unknown field, or a value of the
// wrong type.
func DecodeBody(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return BadRequest("a JSON request body is required")
	}
	var raw any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return BadRequest("malformed JSON body: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return BadRequest("malformed JSON body: data after the JSON value")
	}
	if path, n, ok := findNegative(raw, ""); ok {
		return BadRequest("%s must not be negative (got %s)", path, n)
	}
	strict := json.NewDecoder(bytes.NewReader(body))
	strict.DisallowUnknownFields()
	if err := strict.Decode(v); err != nil {
		return BadRequest("%s", describeDecodeError(err))
	}
	return nil
}

// findNegative returns the path of the first negative number in v outside signedFields.
func findNegative(v any, path string) (string, string, bool) {
	switch t := v.(type) {
	case json.Number:
		if strings.HasPrefix(string(t), "-") && !isSignedField(path) {
			return path, string(t), true
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if p, n, ok := findNegative(t[k], joinPath(path, k)); ok {
				return p, n, true
			}
		}
	case []any:
		for i, e := range t {
			if p, n, ok := findNegative(e, path+"["+strconv.Itoa(i)+"]"); ok {
				return p, n, true
			}
		}
	}
	return "", "", false
}

// isSignedField reports whether the last element of path may be negative.
func isSignedField(path string) bool {
	last := path[strings.LastIndex(path, ".")+1:]
	return slices.Contains(signedFields, last)
}

// joinPath appends a key to a JSON path.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// describeDecodeError turns a json decoding error into a client-facing message.
func describeDecodeError(err error) string {
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		if te.Field != "" {
			return fmt.Sprintf("%s: expected %s, got %s", te.Field, te.Type, te.Value)
		}
		return fmt.Sprintf("expected %s, got %s", te.Type, te.Value)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	return "invalid request body: " + msg
}

// MarshalJSON encodes a response without HTML escaping.
func MarshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
