package market

import (
	"bytes"
	"errors"
	"fmt"

	json "github.com/go-json-experiment/json/v1"
)

// maxScalarEcho bounds how much of an unparsable scalar an error message repeats.
const maxScalarEcho = 32

// scalarText returns the text of a JSON number or JSON string. null and the empty string report
// null = true so that callers leave the destination unchanged.
func scalarText(b []byte) (text string, null bool, err error) {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0:
		return "", false, errors.New("empty JSON value")
	case bytes.Equal(b, []byte("null")):
		return "", true, nil
	case b[0] == '"' && len(b) >= 2 && b[len(b)-1] == '"' && bytes.IndexByte(b[1:len(b)-1], '\\') < 0 &&
		bytes.IndexByte(b[1:len(b)-1], '"') < 0:
		return string(b[1 : len(b)-1]), len(b) == 2, nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return "", false, fmt.Errorf("bad JSON string: %w", err)
		}
		if s == "" {
			return "", true, nil
		}
		return s, false, nil
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		return string(b), false, nil
	default:
		return "", false, fmt.Errorf("want a number or a string, got %s", jsonKind(b[0]))
	}
}

// unmarshalScalar decodes b, a JSON number or a JSON string holding one, into *dst with parse. null and
// "" leave *dst unchanged. An error of the JSON text is prefixed with what; parse's errors are returned
// as they are, so parse names the value itself.
func unmarshalScalar[T any](b []byte, dst *T, what string, parse func(text string) (T, error)) error {
	text, null, err := scalarText(b)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if null {
		return nil
	}
	v, err := parse(text)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

// jsonKind names the kind of JSON value that starts with c.
func jsonKind(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	default:
		return "an invalid value"
	}
}

// Echo returns s shortened for an error message.
func Echo(s string) string {
	if len(s) > maxScalarEcho {
		return s[:maxScalarEcho] + "…"
	}
	return s
}
