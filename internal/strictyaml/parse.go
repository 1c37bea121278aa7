package strictyaml

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"
)

var lineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// ParseDocument parses data as exactly one YAML document and returns its
// root node. An empty file, a file holding only comments, and a second
// document are errors.
func ParseDocument(file string, data []byte) (*yaml.Node, error) {
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
