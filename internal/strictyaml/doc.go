// Package strictyaml decodes YAML configuration strictly and reports every
// problem with its file, line and column.
//
// gopkg.in/yaml.v3 rejects unknown fields only with a line number, stops at
// the first type error, and loses strictness under custom unmarshalers. This
// package parses one document into a yaml.Node, walks it against the target
// Go type to collect every unknown key, duplicate key and mistyped scalar with
// its position, optionally expands ${ENV} references in string values, and
// only then decodes. Callers add their own semantic checks with Find and At,
// which point at the offending node.
package strictyaml
