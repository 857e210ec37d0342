package graphdata

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// mapping is a YAML mapping with its keys' nodes, so that every problem
// can name the line it is on.
type mapping struct {
	node   *yaml.Node
	keys   []string
	values map[string]*yaml.Node
	lines  map[string]int
}

// parseMapping parses data as a single YAML document holding a mapping:
// with parseSimpleYAML when data is in its subset (nearly every real
// file), else with yaml.v3.
func parseMapping(data []byte) (*mapping, error) {
	if n, ok := parseSimpleYAML(data); ok {
		return asMapping(n)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, fmt.Errorf("line 1: empty document")
	}
	return asMapping(doc.Content[0])
}

func asMapping(n *yaml.Node) (*mapping, error) {
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: want a mapping, got %s", n.Line, kindName(n))
	}
	m := &mapping{node: n, values: map[string]*yaml.Node{}, lines: map[string]int{}}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if _, dup := m.values[k.Value]; dup {
			return nil, fmt.Errorf("line %d: duplicate key %q", k.Line, k.Value)
		}
		m.keys = append(m.keys, k.Value)
		m.values[k.Value] = v
		m.lines[k.Value] = k.Line
	}
	return m, nil
}

// str returns the string value of key; problems name the line.
func (m *mapping) str(key string) (string, int, error) {
	v, ok := m.values[key]
	if !ok {
		return "", m.node.Line, fmt.Errorf("line %d: missing %q", m.node.Line, key)
	}
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		return "", v.Line, fmt.Errorf("line %d: %q must be a string, got %s", v.Line, key, kindName(v))
	}
	return v.Value, v.Line, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return fmt.Sprintf("%s %q", n.ShortTag(), n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "nothing"
}
