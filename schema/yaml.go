package schema

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// fromYAML converts the first YAML document in data to the JSON data model
// JSON Schema works on, keeping the line of every value (for a mapping
// member, the line of its key). Scalars keep the type YAML resolves for
// them, as graph-data readers see it: `to: 4.10` is a number, not a
// version, and fails a string schema. Duplicate keys, which JSON cannot
// represent, are problems (the last value is validated).
func fromYAML(data []byte) (any, map[string]int, []Problem, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, nil, fmt.Errorf("not YAML: %w", err)
	}
	c := &yamlConv{lines: map[string]int{}}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		c.lines[""] = 1
		return nil, c.lines, nil, nil // empty: null
	}
	root := doc.Content[0]
	c.lines[""] = root.Line
	v := c.value(root, "", 0)
	return v, c.lines, c.problems, nil
}

// lineOfPointer is the line of the value at ptr or of its nearest ancestor.
func lineOfPointer(lines map[string]int, ptr string) int {
	for {
		if l, ok := lines[ptr]; ok {
			return l
		}
		if ptr == "" {
			return 0
		}
		ptr = ptr[:strings.LastIndexByte(ptr, '/')]
	}
}

type yamlConv struct {
	lines    map[string]int
	problems []Problem
}

// maxAliasDepth bounds alias expansion (a YAML "billion laughs" or an alias
// to its own ancestor).
const maxAliasDepth = 64

func (c *yamlConv) value(n *yaml.Node, ptr string, aliases int) any {
	switch n.Kind {
	case yaml.AliasNode:
		if aliases >= maxAliasDepth || n.Alias == nil {
			c.problems = append(c.problems, Problem{Pointer: ptr, Line: n.Line, Message: "alias nested too deeply"})
			return nil
		}
		return c.value(n.Alias, ptr, aliases+1)
	case yaml.MappingNode:
		obj := map[string]any{}
		c.mapping(n, ptr, aliases, obj, map[string]bool{})
		return obj
	case yaml.SequenceNode:
		arr := make([]any, len(n.Content))
		for i, item := range n.Content {
			p := ptr + "/" + strconv.Itoa(i)
			c.lines[p] = item.Line
			arr[i] = c.value(item, p, aliases)
		}
		return arr
	case yaml.ScalarNode:
		return scalar(n)
	}
	return nil
}

// mapping adds n's members to obj; explicit keys win over merged (<<) ones.
func (c *yamlConv) mapping(n *yaml.Node, ptr string, aliases int, obj map[string]any, explicit map[string]bool) {
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		key := k.Value
		if k.Kind != yaml.ScalarNode {
			c.problems = append(c.problems, Problem{Pointer: ptr, Line: k.Line, Message: "mapping key must be a scalar"})
			continue
		}
		p := ptr + "/" + escapeToken(key)
		if explicit[key] {
			c.problems = append(c.problems, Problem{Pointer: p, Line: k.Line,
				Message: fmt.Sprintf("duplicate key %q: readers reject the file or keep only one of the values", key)})
		}
		explicit[key] = true
		c.lines[p] = k.Line
		obj[key] = c.value(v, p, aliases)
	}
	for _, m := range merges {
		for m.Kind == yaml.AliasNode && m.Alias != nil && aliases < maxAliasDepth {
			m, aliases = m.Alias, aliases+1
		}
		srcs := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			srcs = m.Content
		}
		for _, src := range srcs {
			for src.Kind == yaml.AliasNode && src.Alias != nil && aliases < maxAliasDepth {
				src, aliases = src.Alias, aliases+1
			}
			if src.Kind != yaml.MappingNode {
				c.problems = append(c.problems, Problem{Pointer: ptr, Line: src.Line, Message: "<< must merge a mapping"})
				continue
			}
			merged := map[string]any{}
			c.mapping(src, ptr, aliases+1, merged, map[string]bool{})
			for k, v := range merged {
				if !explicit[k] {
					if _, done := obj[k]; !done {
						obj[k] = v
					}
				}
			}
		}
	}
}

// scalar converts a scalar by its resolved tag.
func scalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return i
		}
		var u uint64
		if n.Decode(&u) == nil {
			return u
		}
		var f float64
		if n.Decode(&f) == nil {
			return f
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
	}
	// !!str, !!timestamp, !!binary, custom tags, and values JSON cannot
	// hold (.nan, .inf) keep their text.
	return n.Value
}
