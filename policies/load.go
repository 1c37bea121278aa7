package policies

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

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
