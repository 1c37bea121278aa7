package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

var lineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// ParseDocument parses data as exactly one YAML document and returns its
// root node. An empty file, a file holding only comments, a second
// document, and bytes that are not YAML text (invalid UTF-8, NUL and other
// control characters, at their line and column) are errors.
func ParseDocument(file string, data []byte) (*yaml.Node, error) {
	if err := checkText(file, data); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: file, Msg: "file is empty: expected a YAML document"}
		}
		return nil, syntaxError(file, err)
	}
	if len(doc.Content) == 0 {
		return nil, &Error{File: file, Msg: "file is empty: expected a YAML document"}
	}
	var second yaml.Node
	switch err := dec.Decode(&second); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, syntaxError(file, err)
	default:
		return nil, At(file, &second, "a second YAML document is not allowed (found '---')")
	}
	return doc.Content[0], nil
}

// syntaxError turns a yaml.v3 parse error into a positioned Error.
func syntaxError(file string, err error) *Error {
	m := lineRE.FindStringSubmatch(err.Error())
	if m == nil {
		return &Error{File: file, Msg: err.Error()}
	}
	line, _ := strconv.Atoi(m[1])
	return &Error{File: file, Line: line, Column: 1, Msg: "syntax error: " + m[2]}
}

// checkText returns the first place where data is not text a YAML file may
// hold: invalid UTF-8, or a control character other than tab, line feed and
// carriage return. yaml.v3 refuses both without a position. A file that
// starts with a UTF-16 byte order mark is left to yaml.v3, which reads it.
func checkText(file string, data []byte) *Error {
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		return nil
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return &Error{File: file, Line: line, Column: col, Msg: fmt.Sprintf("byte 0x%02x is not UTF-8 text: a YAML file must be UTF-8", data[i])}
		case !allowed(r):
			return &Error{File: file, Line: line, Column: col, Msg: fmt.Sprintf("control character %U is not allowed in a YAML file", r)}
		case r == '\n':
			line, col = line+1, 1
		default:
			col++
		}
		i += size
	}
	return nil
}

// allowed reports whether YAML 1.2's printable set holds r.
func allowed(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r' || r == 0x85:
		return true
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0xfffe || r == 0xffff:
		return false
	}
	return true
}
