package policies

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// Source is one policy file: its name (as errors show it) and contents.
type Source struct {
	Name string
	Data []byte
}

// Parse parses one policy file. On any problem it returns nil and an
// Errors holding every problem found, each as `file:line:col: policy "x":
// message`.
func Parse(file string, data []byte) ([]*Policy, error) {
	return ParseAll([]Source{{Name: file, Data: data}})
}

// ParseAll parses policy files together: names must be unique across all of
// them. It returns the policies in file order, or nil and an Errors with
// every problem of every file.
func ParseAll(srcs []Source) ([]*Policy, error) {
	var (
		all   []*Policy
		errs  Errors
		first = map[string]*Error{} // name → where it was first defined
	)
	for _, s := range srcs {
		r := &reporter{file: s.Name, src: s.Data}
		ps, names := parseFile(r, s.Data)
		for _, n := range names {
			if prev, dup := first[n.Msg]; dup {
				r.atPos(n.Line, n.Column, n.Msg, "duplicate policy name (first defined at %s:%d:%d)", prev.File, prev.Line, prev.Column)
				continue
			}
			first[n.Msg] = n
		}
		all = append(all, ps...)
		errs = append(errs, r.errs...)
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	return all, nil
}

// parseFile parses one file. It returns the valid policies and the
// position of every policy name written (as Errors whose Msg is the name).
func parseFile(r *reporter, data []byte) ([]*Policy, []*Error) {
	root, err := strictyaml.ParseDocument(r.file, data)
	if err != nil {
		r.errs = append(r.errs, fromStrict(r.file, err))
		return nil, nil
	}
	var f fileShape
	for _, e := range strictyaml.Decode(r.file, root, &f, strictyaml.Options{}) {
		r.errs = append(r.errs, &Error{File: r.file, Line: e.Line, Column: e.Column, Msg: e.Msg})
	}
	list := strictyaml.Find(root, "policies")
	switch {
	case root.Kind != yaml.MappingNode:
		return nil, nil // reported by Decode
	case list == root:
		r.at(root, "", "policies is required: a list of policies")
		return nil, nil
	case list.Kind == yaml.ScalarNode && list.Tag == "!!null":
		r.at(list, "", "policies must be a list of policies (use [] for none)")
		return nil, nil
	case list.Kind != yaml.SequenceNode:
		return nil, nil // reported by Decode
	}
	var (
		out   []*Policy
		names []*Error
	)
	for _, item := range list.Content {
		if item.Kind == yaml.AliasNode {
			item = item.Alias
		}
		b := &builder{r: r, node: item}
		if n := strictyaml.Find(item, "name"); n != item && n.Kind == yaml.ScalarNode && n.Value != "" {
			b.name = n.Value
			names = append(names, &Error{File: r.file, Line: n.Line, Column: n.Column, Msg: n.Value})
		}
		if p := b.build(); p != nil {
			out = append(out, p)
		}
	}
	return out, names
}

// String returns the policy's name, kind and position.
func (p *Policy) String() string {
	return fmt.Sprintf("%s (%s) at %s:%d:%d", p.Name, p.Kind, p.File, p.Line, p.Column)
}

// LoadFiles reads and parses the policy files that globs name, each glob
// relative to dir unless absolute (the config's folder). Files matched by
// several globs are read once; files are parsed in sorted order. A glob that
// matches nothing is an error, so a typo cannot silently disable policies.
func LoadFiles(dir string, globs []string) ([]*Policy, error) {
	var (
		files []string
		errs  Errors
	)
	for _, g := range globs {
		if !filepath.IsAbs(g) {
			g = filepath.Join(dir, g)
		}
		m, err := filepath.Glob(g)
		switch {
		case err != nil:
			errs = append(errs, &Error{File: g, Msg: fmt.Sprintf("bad policy file pattern: %v", err)})
		case len(m) == 0:
			errs = append(errs, &Error{File: g, Msg: "no policy file matches this pattern"})
		}
		files = append(files, m...)
	}
	slices.Sort(files)
	files = slices.Compact(files)
	srcs := make([]Source, 0, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, &Error{File: f, Msg: fmt.Sprintf("reading policy file: %v", err)})
			continue
		}
		srcs = append(srcs, Source{Name: f, Data: data})
	}
	ps, err := ParseAll(srcs)
	if err != nil {
		if pe, ok := err.(Errors); ok {
			errs = append(errs, pe...)
		}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	return ps, nil
}
