package diff

import (
	"slices"
	"strconv"
	"strings"

	"github.com/upgraph/upgraph/release/graph"
)

// nodeLines shows an added node in full, since a reviewer vets what is
// new, a removed one by version, and a changed one field by field.
func (g *GraphDiff) nodeLines() []line {
	var es []keyed[string]
	for _, n := range g.Nodes.Added {
		l := line{sign: '+', text: "node " + n.Version, sub: []line{{sign: '+', text: "payload: " + n.Payload}}}
		for _, k := range sortedKeys(n.Metadata, strings.Compare) {
			l.sub = append(l.sub, line{sign: '+', text: metadataLine(k, n.Metadata[k])})
		}
		es = append(es, keyed[string]{n.Version, l})
	}
	for _, n := range g.Nodes.Removed {
		es = append(es, keyed[string]{n.Version, line{sign: '-', text: "node " + n.Version}})
	}
	for _, c := range g.Nodes.Changed {
		l := line{sign: '~', text: "node " + c.Version}
		if c.Payload != nil {
			l.sub = append(l.sub, line{sign: '-', text: "payload: " + c.Payload.Old}, line{sign: '+', text: "payload: " + c.Payload.New})
		}
		for _, k := range c.Metadata {
			if k.Old != nil && k.New != nil && isListKey(k.Key) {
				if items := listChange(*k.Old, *k.New); items != "" {
					l.sub = append(l.sub, line{sign: '~', text: "metadata " + k.Key + ": " + items})
					continue
				}
			}
			if k.Old != nil {
				l.sub = append(l.sub, line{sign: '-', text: metadataLine(k.Key, *k.Old)})
			}
			if k.New != nil {
				l.sub = append(l.sub, line{sign: '+', text: metadataLine(k.Key, *k.New)})
			}
		}
		es = append(es, keyed[string]{c.Version, l})
	}
	return sortedLines(es, compareVersions)
}

// isListKey is true for the metadata keys whose values are
// comma-separated sets. Dropping a channel changes the channels key of
// every release in it, so showing the whole old and new lists for each
// would bury the one name that changed.
func isListKey(key string) bool {
	switch key {
	case graph.KeyChannels, graph.KeyPreviousAdd, graph.KeyNextAdd, graph.KeyPreviousRemove, graph.KeyNextRemove:
		return true
	}
	return false
}

// listChange lists the items removed ("-x") and added ("+y"), or "" when
// only their order or repetition differs.
func listChange(old, new string) string {
	o, n := graph.SplitList(old), graph.SplitList(new)
	var parts []string
	for _, x := range o {
		if !slices.Contains(n, x) && !slices.Contains(parts, "-"+x) {
			parts = append(parts, "-"+x)
		}
	}
	for _, x := range n {
		if !slices.Contains(o, x) && !slices.Contains(parts, "+"+x) {
			parts = append(parts, "+"+x)
		}
	}
	return strings.Join(parts, " ")
}

// metadataLine quotes the value: metadata values are free text.
func metadataLine(key, value string) string {
	return "metadata " + key + ": " + strconv.Quote(value)
}
