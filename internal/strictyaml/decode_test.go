package strictyaml

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

type inner struct {
	Level string        `yaml:"level"`
	Every time.Duration `yaml:"every"`
}

type sample struct {
	Name    string            `yaml:"name"`
	Count   int32             `yaml:"count"`
	Ratio   float64           `yaml:"ratio"`
	On      bool              `yaml:"on"`
	Size    uint16            `yaml:"size"`
	Inner   inner             `yaml:"inner"`
	List    []inner           `yaml:"list"`
	Labels  map[string]string `yaml:"labels"`
	Ptr     *inner            `yaml:"ptr"`
	Skipped string            `yaml:"-"`
}

func decode(t *testing.T, src string, opts Options) (sample, error) {
	t.Helper()
	node, err := ParseDocument("f.yaml", []byte(src))
	if err != nil {
		return sample{}, err
	}
	out := sample{Name: "default", Inner: inner{Level: "info"}}
	return out, Decode("f.yaml", node, &out, opts).Err()
}

func TestDecodeGood(t *testing.T) {
	src := "name: x\ncount: 7\nratio: 1\non: true\nsize: 65535\ninner: {every: 1m30s}\nlist: [{level: a}]\nlabels: {a: b}\nptr: {level: p}\n"
	got, err := decode(t, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "x" || got.Count != 7 || got.Ratio != 1 || !got.On || got.Size != 65535 {
		t.Errorf("scalars = %+v", got)
	}
	if got.Inner.Level != "info" || got.Inner.Every != 90*time.Second {
		t.Errorf("inner = %+v, want default level kept and 1m30s", got.Inner)
	}
	if len(got.List) != 1 || got.List[0].Level != "a" || got.Labels["a"] != "b" || got.Ptr.Level != "p" {
		t.Errorf("composites = %+v", got)
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"unknown top", "nmae: x\n", []string{`f.yaml:1:1: unknown field "nmae" at the top level (did you mean "name"?)`}},
		{"unknown nested", "inner:\n  levl: x\n", []string{`f.yaml:2:3: unknown field "levl" in inner (did you mean "level"?)`}},
		{"unknown far", "inner:\n  zzzzzz: x\n", []string{`known: every, level`}},
		{"in list", "list:\n  - level: a\n  - bogus: 1\n", []string{`f.yaml:3:5: unknown field "bogus" in list[1]`}},
		{"all at once", "count: ten\non: yes please\nsize: -1\nratio: abc\n", []string{
			`f.yaml:1:8: count: expected an integer that fits int32, got "ten"`,
			`f.yaml:2:5: on: expected true or false`,
			`f.yaml:3:7: size: expected a non-negative integer`,
			`f.yaml:4:8: ratio: expected a number`,
		}},
		{"not finite", "ratio: .nan\n", []string{`1:8: ratio: expected a finite number, got ".nan"`}},
		{"infinite", "ratio: -.Inf\n", []string{`1:8: ratio: expected a finite number, got "-.Inf"`}},
		{"overflow", "count: 9999999999\n", []string{`1:8: count: expected an integer that fits int32`}},
		{"duration", "inner: {every: soon}\n", []string{`1:16: inner.every: "soon" is not a duration`}},
		{"duplicate", "name: a\nname: b\n", []string{`2:1: document: duplicate key "name"`}},
		{"shape", "inner: [1]\nlist: {a: 1}\nname: {a: 1}\n", []string{
			"1:8: inner: expected a mapping, got a list",
			"2:7: list: expected a list, got a mapping",
			"3:7: name: expected a string, got a mapping",
		}},
		{"empty", "", []string{"f.yaml: file is empty"}},
		{"comments only", "# nothing\n", []string{"f.yaml: file is empty"}},
		{"second doc", "name: a\n---\nname: b\n", []string{"f.yaml:2:1: a second YAML document is not allowed"}},
		{"syntax", "name: [a\n", []string{"f.yaml:", "syntax error"}},
		{"top not mapping", "- a\n", []string{"1:1: document: expected a mapping, got a list"}},
		{"not UTF-8", "name: a\ninner: {level: \"x\xffy\"}\n", []string{"f.yaml:2:18: byte 0xff is not UTF-8 text"}},
		{"NUL", "name: a\x00\n", []string{"f.yaml:1:8: control character U+0000 is not allowed"}},
		{"NUL in a comment", "# é\x00\nname: a\n", []string{"f.yaml:1:4: control character U+0000"}},
		{"whitespace only", " \n\n  \n", []string{"f.yaml: file is empty"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decode(t, c.src, Options{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
}

func TestDecodeEnv(t *testing.T) {
	env := map[string]string{"TOKEN": "s3cr3t", "HOST": "h"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	got, err := decode(t, "name: \"http://${HOST}/x?k=${TOKEN}\"\nlabels: {a: '${HOST}'}\n", Options{LookupEnv: lookup})
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "http://h/x?k=s3cr3t" || got.Labels["a"] != "h" {
		t.Errorf("expanded = %q, %q", got.Name, got.Labels["a"])
	}
	_, err = decode(t, "name: ${MISSING}\n", Options{LookupEnv: lookup})
	if err == nil || !strings.Contains(err.Error(), "1:7: name: environment variable MISSING is not set") {
		t.Errorf("err = %v", err)
	}
	got, err = decode(t, "name: ${HOST}\n", Options{})
	if err != nil || got.Name != "${HOST}" {
		t.Errorf("without LookupEnv: %q, %v", got.Name, err)
	}
}

func TestFind(t *testing.T) {
	node, err := ParseDocument("f.yaml", []byte("a:\n  b:\n    - x\n    - y\n"))
	if err != nil {
		t.Fatal(err)
	}
	if n := Find(node, "a", "b", 1); n.Value != "y" || n.Line != 4 || n.Column != 7 {
		t.Errorf("Find = %q at %d:%d", n.Value, n.Line, n.Column)
	}
	if n := Find(node, "a", "missing"); n.Line != 2 || n.Column != 3 {
		t.Errorf("Find missing stops at %d:%d, want the mapping under a at 2:3", n.Line, n.Column)
	}
	if k := FindKey(Find(node, "a"), "b"); k.Line != 2 || k.Column != 3 || k.Value != "b" {
		t.Errorf("FindKey = %q at %d:%d", k.Value, k.Line, k.Column)
	}
}

// checked is a type that checks its own nodes: only "ok" is one.
type checked struct{ v string }

func (c *checked) CheckYAML(n *yaml.Node) error {
	if n.Value != "ok" {
		return fmt.Errorf("%q is not ok", n.Value)
	}
	return nil
}

func (c *checked) UnmarshalYAML(n *yaml.Node) error { c.v = n.Value; return nil }

// TestDecodeAsksCheckers: a Checker's complaint is reported at its node
// with the walk's other problems, and a good value decodes.
func TestDecodeAsksCheckers(t *testing.T) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("a: bad\nb: 1\nc: ok\n"), &n); err != nil {
		t.Fatal(err)
	}
	var out struct {
		A checked `yaml:"a"`
		B bool    `yaml:"b"`
		C checked `yaml:"c"`
	}
	errs := Decode("f.yaml", n.Content[0], &out, Options{})
	if len(errs) != 2 || errs[0].Error() != `f.yaml:1:4: a: "bad" is not ok` || !strings.Contains(errs[1].Error(), "f.yaml:2:4: b:") {
		t.Fatalf("errors %v", errs)
	}
	var good struct {
		C checked `yaml:"c"`
	}
	if err := yaml.Unmarshal([]byte("c: ok\n"), &n); err != nil {
		t.Fatal(err)
	}
	if errs := Decode("f.yaml", n.Content[0], &good, Options{}); len(errs) != 0 || good.C.v != "ok" {
		t.Errorf("good value: %v, %+v", errs, good)
	}
}
