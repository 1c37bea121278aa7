package policytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// toJSON converts a YAML node to JSON text: mappings become objects,
// sequences arrays, and scalars numbers, booleans, null or strings by
// their resolved tag.
func toJSON(n *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	err := writeJSON(&b, n)
	return b.Bytes(), err
}

func writeJSON(b *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		return writeJSON(b, n.Content[0])
	case yaml.AliasNode:
		return writeJSON(b, n.Alias)
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(n.Content[i].Value)
			b.Write(k)
			b.WriteByte(':')
			if err := writeJSON(b, n.Content[i+1]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, c); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		return writeScalar(b, n)
	}
	return nil
}

func writeScalar(b *bytes.Buffer, n *yaml.Node) error {
	switch n.Tag {
	case "!!null":
		b.WriteString("null")
	case "!!bool":
		var v bool
		if err := n.Decode(&v); err != nil {
			return err
		}
		b.WriteString(strconv.FormatBool(v))
	case "!!int":
		s := strings.ReplaceAll(n.Value, "_", "")
		if u, err := strconv.ParseUint(s, 0, 64); err == nil {
			b.WriteString(strconv.FormatUint(u, 10))
		} else if i, err := strconv.ParseInt(s, 0, 64); err == nil {
			b.WriteString(strconv.FormatInt(i, 10))
		} else {
			return fmt.Errorf("integer %s does not fit 64 bits", n.Value)
		}
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return err
		}
		out, err := json.Marshal(f)
		if err != nil {
			return fmt.Errorf("%s is not a finite number", n.Value)
		}
		b.Write(out)
	default:
		s, _ := json.Marshal(n.Value)
		b.Write(s)
	}
	return nil
}

// decodeWire decodes a wire-shape node into out (a pointer to a market
// type) after checking its keys against out's JSON field names.
func decodeWire(n *yaml.Node, out any) error {
	if err := checkKeys(n, reflect.TypeOf(out).Elem(), ""); err != nil {
		return err
	}
	data, err := toJSON(n)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// legacyKeys returns the names the market type called typeName accepts
// besides its JSON tags. It is a function, not a package-level map, so that
// the package does no work when keeper starts: only `keeper test` uses it.
func legacyKeys(typeName string) []string {
	if typeName == "Ledger" {
		return []string{"lastInterestUpdateTime"}
	}
	return nil
}

// checkKeys reports the first mapping key that t's JSON fields do not
// know, as a *keyError positioned at the key.
func checkKeys(n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		return checkStruct(n, t, path)
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			if err := checkKeys(n.Content[i], t.Elem(), path+"."+strictyaml.PathSegment(n.Content[i-1].Value)); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode && !reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()):
		for i, c := range n.Content {
			if err := checkKeys(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkStruct(n *yaml.Node, t reflect.Type, path string) error {
	fields := jsonFields(t)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		ft, ok := fields[k.Value]
		if !ok {
			return &keyError{node: k, msg: unknownField(k.Value, t, path, fields)}
		}
		if ft != nil {
			if err := checkKeys(n.Content[i+1], ft, path+"."+k.Value); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonFields maps the JSON names of t's fields to their types (nil for a
// legacy alias).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	for _, k := range legacyKeys(t.Name()) {
		out[k] = nil
	}
	return out
}

// keyError is a problem at a YAML node inside a wire-shape value.
type keyError struct {
	node *yaml.Node
	msg  string
}

func (e *keyError) Error() string { return e.msg }

// unknownField explains an unknown key, suggesting the closest known one.
func unknownField(key string, t reflect.Type, path string, fields map[string]reflect.Type) string {
	where := strings.TrimPrefix(path, ".")
	if where == "" {
		where = "the " + t.Name() + " record"
	}
	known := slices.Sorted(maps.Keys(fields))
	if best := strictyaml.Closest(key, known); best != "" {
		return fmt.Sprintf("unknown field %s in %s (did you mean %q?)", strictyaml.NameExcerpt(key), where, best)
	}
	return fmt.Sprintf("unknown field %s in %s (known: %s)", strictyaml.NameExcerpt(key), where, strings.Join(known, ", "))
}
