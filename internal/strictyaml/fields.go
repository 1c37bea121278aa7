package strictyaml

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// structFields maps the YAML keys a struct type accepts to their field types,
// following yaml.v3's tag rules: `yaml:"name"`, `yaml:"-"`, `yaml:",inline"`
// and the lower-cased field name when there is no tag.
func structFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "-" {
			continue
		}
		key, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(opts, "inline") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			for k, v := range structFields(ft) {
				out[k] = v
			}
			continue
		}
		if key == "" {
			key = strings.ToLower(f.Name)
		}
		out[key] = f.Type
	}
	return out
}

// unknownField explains an unknown key, suggesting the closest known one.
func unknownField(path, key string, fields map[string]reflect.Type) string {
	known := make([]string, 0, len(fields))
	for k := range fields {
		known = append(known, k)
	}
	sort.Strings(known)
	where := "at the top level"
	if path != "" {
		where = "in " + path
	}
	msg := fmt.Sprintf("unknown field %s %s", NameExcerpt(key), where)
	if best := Closest(key, known); best != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", best)
	}
	return msg + fmt.Sprintf(" (known: %s)", strings.Join(known, ", "))
}

// Closest returns the known name within edit distance 2 of name (the
// nearest, the first on a tie), or "" when none is that close: the "did you
// mean" of every unknown-name error.
func Closest(key string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := distance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// distance is the Levenshtein edit distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
