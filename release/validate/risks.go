package validate

import (
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// b14Ignored are the keys that legitimately differ between files of one
// risk: the same risk applies to several edges and gets fixed per stream.
var b14Ignored = map[string]bool{"from": true, "to": true, "fixedIn": true}

// sameNameRisks is B14: the files declaring a risk name must agree on
// everything else, since clusters show one risk per name. Each file is
// compared with the first one (in path order) declaring the name.
func (c *checker) sameNameRisks(r *report) {
	first := map[string]*edgeFile{}
	memo := map[*yaml.Node]string{} // a reference file is compared many times
	canon := func(n *yaml.Node) string {
		s, ok := memo[n]
		if !ok {
			s = canonical(n)
			memo[n] = s
		}
		return s
	}
	for _, e := range c.edges {
		if !e.isYAML {
			continue // the Python CI reads .yaml files only
		}
		name, ok := e.m.str("name")
		if !ok {
			continue
		}
		ref, seen := first[name]
		if !seen {
			first[name] = e
			continue
		}
		for _, k := range unionKeys(ref.m, e.m) {
			if b14Ignored[k] || canon(ref.m.values[k]) == canon(e.m.values[k]) {
				continue
			}
			r.errorf(e.file, e.m.line(k), "B14", "risk %s diverges on %s from %s:%d", name, k, ref.file, ref.m.line(k))
		}
	}
}

func unionKeys(a, b *mapping) []string {
	keys := slices.Clone(a.keys)
	for _, k := range b.keys {
		if !a.has(k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// canonical is the value as PyYAML would load it, with mapping keys
// sorted: the Python CI compares dumps of the loaded values, so neither
// formatting (block or quoted scalar) nor key order matters, content does.
func canonical(n *yaml.Node) string {
	if n == nil {
		return "<absent>"
	}
	var b strings.Builder
	writeCanonical(&b, n)
	return b.String()
}

func writeCanonical(b *strings.Builder, n *yaml.Node) {
	switch n.Kind {
	case yaml.AliasNode:
		writeCanonical(b, n.Alias)
	case yaml.ScalarNode:
		b.WriteString(n.Tag)
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(n.Value))
	case yaml.SequenceNode:
		b.WriteByte('[')
		for _, item := range n.Content {
			writeCanonical(b, item)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case yaml.MappingNode:
		type kv struct{ k, v string }
		var kvs []kv
		for i := 0; i+1 < len(n.Content); i += 2 {
			kvs = append(kvs, kv{canonical(n.Content[i]), canonical(n.Content[i+1])})
		}
		slices.SortFunc(kvs, func(a, b kv) int { return strings.Compare(a.k, b.k) })
		kvs = slices.CompactFunc(kvs, func(a, b kv) bool { return a.k == b.k }) // PyYAML keeps one
		b.WriteByte('{')
		for _, e := range kvs {
			b.WriteString(e.k + ":" + e.v + ",")
		}
		b.WriteByte('}')
	}
}

// duplicateBlocks flags unconditional blocks whose targets overlap:
// upstream keeps only the one read last (§3.7), upgraph joins them.
func (c *checker) duplicateBlocks(r *report) {
	byKey := map[string][]*edgeFile{}
	for _, e := range c.edges {
		if !e.read || e.shape != block {
			continue
		}
		k := e.to.Key()
		for _, prev := range byKey[k] {
			if b, pb := e.to.Build(), prev.to.Build(); b == "" || pb == "" || b == pb {
				r.warnf(e.file, e.m.line("to"), "L-duplicate-block", "%s is also blocked unconditionally by %s:%d; upstream applies only the file it reads last (upgraph applies both)", e.to, prev.file, prev.m.line("to"))
				break
			}
		}
		byKey[k] = append(byKey[k], e)
	}
}
