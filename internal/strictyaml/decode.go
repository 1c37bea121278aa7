package strictyaml

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Options tune Decode.
type Options struct {
	// LookupEnv, when set, expands ${NAME} in every string value through it;
	// a name it does not know is an error at the value's position. Nil
	// leaves string values untouched.
	LookupEnv func(name string) (string, bool)
	// Optional, when set, names the value paths (dotted, as in errors) at
	// which an unknown name expands to "" without an error.
	Optional func(path string) bool
}

// Decode checks node against the type of out (a non-nil pointer), collecting
// every unknown or duplicate key and every scalar of the wrong kind with its
// position, expands environment references when asked, and then decodes node
// into out. Fields already set in out keep their values when node omits them,
// so callers pre-fill defaults. It returns all problems found.
func Decode(file string, node *yaml.Node, out any, opts Options) Errors {
	errs, _ := DecodeAll(file, node, out, opts)
	return errs
}

// DecodeAll is Decode that still decodes node into out when every problem
// is an unknown key (which decoding skips), so the caller can check the
// values and report its problems with these: decoded says whether out was
// filled.
func DecodeAll(file string, node *yaml.Node, out any, opts Options) (errs Errors, decoded bool) {
	w := walker{file: file, opts: opts}
	w.walk(node, reflect.TypeOf(out).Elem(), "")
	if w.hard {
		return w.errs, false
	}
	if err := node.Decode(out); err != nil {
		return append(w.errs, decodeError(file, node, err)), false
	}
	return w.errs, true
}

type walker struct {
	file string
	opts Options
	errs Errors
	// hard is set by a problem that leaves a value undecodable (all but
	// unknown keys).
	hard bool
}

// Checker is a type that decodes itself (a yaml.Unmarshaler) and can say
// of a node, before anything is decoded, why it is not a value of the type.
// Decode reports that at the node with every other problem it finds.
type Checker interface {
	CheckYAML(n *yaml.Node) error
}

var (
	checkerType     = reflect.TypeOf((*Checker)(nil)).Elem()
	unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()
	durationType    = reflect.TypeOf(time.Duration(0))
)

func (w *walker) fail(n *yaml.Node, format string, args ...any) {
	w.errs = append(w.errs, At(w.file, n, format, args...))
	w.hard = true
}

// unknown reports an unknown key: decoding skips it, so values can still
// be checked.
func (w *walker) unknown(n *yaml.Node, msg string) {
	w.errs = append(w.errs, At(w.file, n, "%s", msg))
}

func (w *walker) walk(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if isNull(n) {
		return
	}
	if pt := reflect.PointerTo(t); pt.Implements(checkerType) {
		if err := reflect.New(t).Interface().(Checker).CheckYAML(n); err != nil {
			w.fail(n, "%s: %v", name(path), err)
		}
		return
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		w.walkStruct(n, t, path)
	case reflect.Map:
		w.walkMap(n, t, path)
	case reflect.Slice, reflect.Array:
		w.walkSlice(n, t, path)
	case reflect.Interface:
	default:
		w.walkScalar(n, t, path)
	}
}

func (w *walker) walkStruct(n *yaml.Node, t reflect.Type, path string) {
	fields := structFields(t)
	w.eachPair(n, path, func(k, v *yaml.Node) {
		ft, ok := fields[k.Value]
		if !ok {
			w.unknown(k, unknownField(path, k.Value, fields))
			return
		}
		w.walk(v, ft, JoinPath(path, k.Value))
	})
}

func (w *walker) walkMap(n *yaml.Node, t reflect.Type, path string) {
	w.eachPair(n, path, func(k, v *yaml.Node) {
		at := JoinPath(path, PathSegment(k.Value))
		w.walkScalar(k, t.Key(), at)
		w.walk(v, t.Elem(), at)
	})
}

// eachPair calls f with each key and value of mapping n, reporting a node
// that is not a mapping and every duplicate key (which f does not see).
func (w *walker) eachPair(n *yaml.Node, path string, f func(k, v *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		w.fail(n, "%s: expected a mapping, got %s", name(path), describe(n))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if seen[k.Value] {
			w.fail(k, "%s: duplicate key %s", name(path), NameExcerpt(k.Value))
			continue
		}
		seen[k.Value] = true
		f(k, v)
	}
}

func (w *walker) walkSlice(n *yaml.Node, t reflect.Type, path string) {
	if t.Elem().Kind() == reflect.Uint8 && n.Kind == yaml.ScalarNode {
		return // []byte from a binary or string scalar
	}
	if n.Kind != yaml.SequenceNode {
		w.fail(n, "%s: expected a list, got %s", name(path), describe(n))
		return
	}
	for i, item := range n.Content {
		w.walk(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
	}
}

func (w *walker) walkScalar(n *yaml.Node, t reflect.Type, path string) {
	if n.Kind != yaml.ScalarNode {
		w.fail(n, "%s: expected %s, got %s", name(path), kindName(t), describe(n))
		return
	}
	if t == durationType {
		if _, err := time.ParseDuration(n.Value); err != nil {
			w.fail(n, "%s: %q is not a duration (examples: 30s, 5m, 1h30m)", name(path), n.Value)
		}
		return
	}
	switch t.Kind() {
	case reflect.String:
		w.expand(n, path)
	case reflect.Bool:
		if n.Tag != "!!bool" {
			w.fail(n, "%s: expected true or false, got %s", name(path), Excerpt(n.Value))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if _, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, t.Bits()); err != nil || n.Tag != "!!int" {
			w.fail(n, "%s: expected an integer that fits %s, got %s", name(path), t.Kind(), Excerpt(n.Value))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if _, err := strconv.ParseUint(strings.ReplaceAll(n.Value, "_", ""), 0, t.Bits()); err != nil || n.Tag != "!!int" {
			w.fail(n, "%s: expected a non-negative integer that fits %s, got %s", name(path), t.Kind(), Excerpt(n.Value))
		}
	case reflect.Float32, reflect.Float64:
		var f float64
		switch {
		case n.Tag != "!!int" && n.Tag != "!!float":
			w.fail(n, "%s: expected a number, got %s", name(path), Excerpt(n.Value))
		case n.Decode(&f) == nil && (math.IsNaN(f) || math.IsInf(f, 0)):
			w.fail(n, "%s: expected a finite number, got %s", name(path), Excerpt(n.Value))
		}
	}
}

var envRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expand replaces ${NAME} in a string scalar when the options ask for it.
func (w *walker) expand(n *yaml.Node, path string) {
	if w.opts.LookupEnv == nil || !strings.Contains(n.Value, "${") {
		return
	}
	n.Value = envRE.ReplaceAllStringFunc(n.Value, func(ref string) string {
		key := ref[2 : len(ref)-1]
		v, ok := w.opts.LookupEnv(key)
		if !ok && (w.opts.Optional == nil || !w.opts.Optional(path)) {
			w.fail(n, "%s: environment variable %s is not set", name(path), key)
		}
		return v
	})
	n.Tag = "!!str"
	n.Style = yaml.DoubleQuotedStyle
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// JoinPath appends key to a dotted path ("" is the root).
func JoinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func name(path string) string {
	if path == "" {
		return "document"
	}
	return path
}

// describe names a node for messages: its shape, or an excerpt of a scalar's value.
func describe(n *yaml.Node) string { return Shape(n, Excerpt(n.Value)) }

// Shape names the shape of node n for messages: "a mapping", "a list", or scalar for any other node.
func Shape(n *yaml.Node, scalar string) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return scalar
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Float32, reflect.Float64:
		return "a number"
	default:
		return "an integer"
	}
}

// decodeError positions an error from yaml.Node.Decode, which names lines only.
func decodeError(file string, n *yaml.Node, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  ")
	if m := regexp.MustCompile(`^line (\d+): (.*)`).FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: file, Line: line, Column: 1, Msg: m[2]}
	}
	return At(file, n, "%s", msg)
}
