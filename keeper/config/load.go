package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/keeper-project/keeper/internal/strictyaml"
)

// LoadFile reads and validates the config at path. Every problem is reported
// at once, each as file:line:col: message (a strictyaml.Errors).
func LoadFile(path string) (*Config, error) { return LoadFileWith(path, LoadOptions{}) }

// LoadOptions say what a command needs of the config.
type LoadOptions struct {
	// Quiet is for commands that send nothing to notifiers (history): the
	// notifiers' URLs and files may be unset or unreadable there; the
	// notifiers load by name only.
	Quiet bool
}

// LoadFileWith is LoadFile for a command that needs less of the config.
func LoadFileWith(path string, o LoadOptions) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	return loadConfig(path, filepath.Dir(abs), data, os.LookupEnv, o)
}

// Load parses data as the config named file, whose relative paths resolve
// against dir, expanding ${NAME} through lookupEnv.
func Load(file, dir string, data []byte, lookupEnv func(string) (string, bool)) (*Config, error) {
	return loadConfig(file, dir, data, lookupEnv, LoadOptions{})
}

func loadConfig(file, dir string, data []byte, lookupEnv func(string) (string, bool), o LoadOptions) (*Config, error) {
	root, err := strictyaml.ParseDocument(file, data)
	if err != nil {
		return nil, err
	}
	cfg := Default()
	inlinePIN := pinWrittenInline(root) // before decoding expands ${NAME}
	opts := strictyaml.Options{LookupEnv: lookupEnv}
	if o.Quiet {
		opts.Optional = func(path string) bool { return strings.HasPrefix(path, "notifiers") }
	}
	errs, decoded := strictyaml.DecodeAll(file, root, &cfg, opts)
	if !decoded {
		return nil, errs
	}

	cfg.File, cfg.Dir = file, dir
	for i := range cfg.Notifiers {
		notifierDefaults(&cfg.Notifiers[i])
	}
	v := validator{file: file, root: root, dir: dir, quiet: o.Quiet, errs: errs, inlinePIN: inlinePIN}
	v.solanaCLI(&cfg, lookupEnv)
	cfg.validate(&v)
	sortByPosition(v.errs)
	if err := v.errs.Err(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// PolicyFiles reads only where the config at path says the policies are and
// the names of its notifiers, without checking anything else: `keeper check`
// checks the policies even when the rest of the config has problems.
func PolicyFiles(path string) (dir string, globs, notifiers []string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, nil, fmt.Errorf("reading config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", nil, nil, fmt.Errorf("reading config: %w", err)
	}
	var c struct {
		Policies  []string `yaml:"policies"`
		Notifiers []struct {
			Name string `yaml:"name"`
		} `yaml:"notifiers"`
	}
	if err := yaml.Unmarshal(data, &c); err != nil {
		return "", nil, nil, fmt.Errorf("%s: not YAML", path)
	}
	for _, n := range c.Notifiers {
		notifiers = append(notifiers, n.Name)
	}
	return filepath.Dir(abs), c.Policies, notifiers, nil
}

// Path resolves p against the config's folder after expanding a leading ~.
func (c *Config) Path(p string) string {
	return resolvePath(c.Dir, p)
}

func resolvePath(dir, p string) string {
	if p == "" {
		return ""
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if filepath.IsAbs(p) || dir == "" {
		return p
	}
	return filepath.Join(dir, p)
}

// JournalPath returns the SQLite file named by the journal DSN, resolved
// against the config's folder, or ":memory:".
func (c *Config) JournalPath() string {
	p := strings.TrimPrefix(c.Journal.DSN.Reveal(), "sqlite:")
	if p == ":memory:" {
		return p
	}
	return c.Path(p)
}

// JournalDSN returns the DSN to open the journal with: an SQLite path
// resolved against the config's folder, or the PostgreSQL URL as written.
// It may hold a password: never print it (print Journal.DSN).
func (c *Config) JournalDSN() string {
	if c.Journal.DSN.Shared() {
		return c.Journal.DSN.Reveal()
	}
	return "sqlite:" + c.JournalPath()
}

// Dump renders the effective config as YAML with every secret redacted.
func (c *Config) Dump() string {
	out, err := yaml.Marshal(c)
	if err != nil {
		return fmt.Sprintf("# config cannot be rendered: %v\n", err)
	}
	return string(out)
}

// sortByPosition orders problems as they appear in the file.
func sortByPosition(errs strictyaml.Errors) {
	slices.SortStableFunc(errs, func(a, b *strictyaml.Error) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
}
