package validate

import (
	"errors"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"
)

// mapping is a YAML mapping with the line of each key, so every problem
// can point at the key it is about.
type mapping struct {
	node    *yaml.Node
	keys    []string
	values  map[string]*yaml.Node
	keyLine map[string]int
	// dupLine is the line of the first repeated key, 0 if none: PyYAML
	// keeps the last value silently, upstream's Rust parser rejects it.
	dupKey  string
	dupLine int
}

// parseYAML returns the document's root node, nil for an empty document.
func parseYAML(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

func asMapping(n *yaml.Node) *mapping {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	m := &mapping{node: n, values: map[string]*yaml.Node{}, keyLine: map[string]int{}}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if _, dup := m.values[k.Value]; dup {
			if m.dupLine == 0 {
				m.dupKey, m.dupLine = k.Value, k.Line
			}
		} else {
			m.keys = append(m.keys, k.Value)
		}
		m.values[k.Value] = v
		m.keyLine[k.Value] = k.Line
	}
	return m
}

func (m *mapping) has(key string) bool {
	_, ok := m.values[key]
	return ok
}

// line is the line of key, or of the mapping when key is absent.
func (m *mapping) line(key string) int {
	if l, ok := m.keyLine[key]; ok {
		return l
	}
	return m.node.Line
}

// str returns key's value when it is a string.
func (m *mapping) str(key string) (string, bool) {
	v, ok := m.values[key]
	if !ok || !isString(v) {
		return "", false
	}
	return v.Value, true
}

// isString reports whether n is a string scalar, as yaml.v3 and
// upstream's Rust parser (YAML 1.2) load it.
func isString(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!str"
}

// yaml11Bool matches the plain scalars YAML 1.1 loads as booleans, which
// YAML 1.2 keeps as strings.
var yaml11Bool = regexp.MustCompile(`^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)

// isPyString reports whether n is a string to PyYAML (YAML 1.1), which
// graph-data's Python CI loads with: an unquoted "yes" is a boolean there.
func isPyString(n *yaml.Node) bool {
	return isString(n) && (n.Style != 0 || !yaml11Bool.MatchString(n.Value))
}

// describe names a value for messages: "badName", 42 (an integer), a list.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			if !isPyString(n) {
				return strconv.Quote(n.Value) + " (a boolean in YAML 1.1, as graph-data CI reads it)"
			}
			return strconv.Quote(n.Value)
		case "!!null":
			return "null"
		case "!!int":
			return n.Value + " (an integer)"
		case "!!float":
			return n.Value + " (a number)"
		case "!!bool":
			return n.Value + " (a boolean)"
		}
		return n.Value + " (" + n.ShortTag() + ")"
	}
	return "nothing"
}

// yamlErrorLine extracts "line N" from a yaml.v3 error, or 1.
func yamlErrorLine(err error) int {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 1
}

var lineRE = regexp.MustCompile(`line (\d+)`)
