package strictyaml

import "gopkg.in/yaml.v3"

// Find follows path from n, where each element is a mapping key (string) or
// a list index (int), and returns the value node found, or the deepest node
// reached when the path does not exist, so errors still point near the
// problem. It never returns nil for a non-nil n.
func Find(n *yaml.Node, path ...any) *yaml.Node {
	for _, p := range path {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		next := step(n, p)
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

// FindKey returns the key node of key in mapping n, or n itself when absent.
func FindKey(n *yaml.Node, key string) *yaml.Node {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i]
			}
		}
	}
	return n
}

func step(n *yaml.Node, p any) *yaml.Node {
	switch p := p.(type) {
	case string:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == p {
				return n.Content[i+1]
			}
		}
	case int:
		if n.Kind == yaml.SequenceNode && p >= 0 && p < len(n.Content) {
			return n.Content[p]
		}
	}
	return nil
}
