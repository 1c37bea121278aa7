// Package config loads keeper's daemon settings from config.yaml.
//
// Loading is strict: unknown keys, mistyped values and invalid settings are
// all reported at once, each with file, line and column. Optional keys get
// defaults (see Default). String values may reference the environment as
// ${NAME}; secrets may instead come from a file (the *_file keys). Relative
// paths resolve against the folder holding the config file. Secrets and keyed
// URLs print redacted wherever a Config is formatted, logged or dumped.
package config
