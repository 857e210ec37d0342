// Package mermaid draws a package's channel graphs as a Mermaid flowchart
// with the conventions of operator-registry's `opm alpha render-graph`
// (alpha/declcfg/write.go, MermaidWriter.WriteChannels), so a drawing
// upgraph publishes reads like the one operator authors know:
//
//   - "graph LR", three classDefs (deprecated, skipped, deprecatedskipped),
//     a subgraph per package and, nested, one per channel (channels by name);
//   - node IDs "<package>-<channel>-<bundle>" labelled with the bundle name,
//     entries newest first, and before each entry's own node the edges into
//     it: skips, then skipRange, then replaces, drawn old → new and labelled
//     skip, "skipRange(<range>)" and replace;
//   - a deprecated package styled fill:#989695, a deprecated channel
//     fill:#DCD0FF, bundles classed deprecated / skipped / deprecatedskipped
//     and links into skipped bundles drawn red and dashed by linkStyle.
//
// Two differences, both deliberate: "skipped" is OLM v0's own verdict
// (model.GraphNode.SkippedByV0: skipped by an entry, or off the replaces
// chain from the head), where render-graph's --draw-v0-semantics marks
// a bundle once a second edge names it; and there is no size limit
// (render-graph's output overflows Mermaid's default maxTextSize of 30,000
// characters on real catalogs; raise it in the renderer's configuration).
package mermaid

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/upgraph/upgraph/catalog/model"
)

// Package is what Write draws: a package's name, its deprecation message
// and the graphs of the channels to draw (any order; drawn by name).
type Package struct {
	Name       string
	Deprecated string
	Channels   []*model.ChannelGraph
}

// typeOrder is the order of edges into an entry, as render-graph writes
// them.
var typeOrder = map[model.EdgeType]int{model.EdgeSkips: 0, model.EdgeSkipRange: 1, model.EdgeReplaces: 2}

// id makes a name part of a Mermaid node or subgraph id. Mermaid's
// lexer reads a quote, space, slash, bracket or line break as the end of
// an id or the start of another statement (a catalog author could add a
// click handler), and "--", "-." and a leading "." as the start of a
// link; so every byte is written _HH (lower-case hex, '_' included)
// except letters and digits, '.' but first, and '-' between two letters
// or digits. An id is then one token whatever the name, parts joined by
// '-' stay apart, and distinct names give distinct ids (_HH decodes
// back). The names of real catalogs (etcd-operator.v1.0.0-rc.1) are their
// own ids, as render-graph writes them. As in render-graph, the parts of
// "P-CH-BUNDLE" are joined by '-', which names may hold too.
func id(name string) string {
	alnum := func(i int) bool {
		if i < 0 || i >= len(name) {
			return false
		}
		c := name[i]
		return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if alnum(i) || c == '.' && i > 0 || c == '-' && alnum(i-1) && alnum(i+1) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "_%02x", c)
	}
	return b.String()
}

// keywords are the words of Mermaid's flowchart lexer that end an id or
// start a statement where an id begins (when a byte other than a letter
// or digit follows them: "endpoint" is an id, "end-x" is not).
var keywords = []string{"class", "classDef", "default", "end", "flowchart", "graph", "interpolate", "linkStyle", "style", "subgraph"}

// firstID is id for the first part of an id (the package): a leading
// keyword gets its first byte escaped too.
func firstID(name string) string {
	s := id(name)
	n := 0
	for n < len(s) && ('a' <= s[n] && s[n] <= 'z' || 'A' <= s[n] && s[n] <= 'Z') {
		n++
	}
	if slices.Contains(keywords, s[:n]) && (n == len(s) || !('0' <= s[n] && s[n] <= '9')) {
		return fmt.Sprintf("_%02x", s[0]) + s[1:]
	}
	return s
}

// text makes s a Mermaid string: in quotes, with '"', '#' and control
// characters written as Mermaid's entity codes (#quot;, #35;, #10;):
// Mermaid has no backslash escapes, so a quote would end the string and
// a line break the statement. Text without them is written as
// render-graph writes it.
func text(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString("#quot;")
		case r == '#' || r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "#%d;", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Write draws the packages (drawn by name) as one Mermaid flowchart.
func Write(w io.Writer, pkgs ...Package) error {
	pkgs = slices.Clone(pkgs)
	slices.SortFunc(pkgs, func(a, b Package) int { return strings.Compare(a.Name, b.Name) })
	b := bufio.NewWriter(w)
	b.WriteString("graph LR\n")
	b.WriteString("  classDef deprecated fill:#E8960F\n")
	b.WriteString("  classDef skipped stroke:#FF0000,stroke-width:4px\n")
	b.WriteString("  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px\n")
	var deprecatedPkgs, deprecatedChannels, skippedLinks []string
	classes := map[string][]string{}
	link := 0
	for _, p := range pkgs {
		fmt.Fprintf(b, "  %%%% package %s\n", strconv.Quote(p.Name))
		if pkgID := firstID(p.Name); pkgID == p.Name {
			fmt.Fprintf(b, "  subgraph %s\n", text(p.Name)) // render-graph's: the title is the id
		} else {
			fmt.Fprintf(b, "  subgraph %s[%s]\n", pkgID, text(p.Name))
		}
		if p.Deprecated != "" {
			deprecatedPkgs = append(deprecatedPkgs, firstID(p.Name))
		}
		chs := slices.Clone(p.Channels)
		slices.SortFunc(chs, func(a, b *model.ChannelGraph) int { return strings.Compare(a.Channel, b.Channel) })
		for _, g := range chs {
			channelID := firstID(p.Name) + "-" + id(g.Channel)
			fmt.Fprintf(b, "    %%%% channel %s\n", strconv.Quote(g.Channel))
			fmt.Fprintf(b, "    subgraph %s[%s]\n", channelID, text(g.Channel))
			if g.Deprecated != "" {
				deprecatedChannels = append(deprecatedChannels, channelID)
			}
			into := map[string][]model.GraphEdge{}
			for _, e := range g.AllEdges() {
				into[e.To] = append(into[e.To], e)
			}
			for _, n := range g.Nodes {
				nodeID := channelID + "-" + id(n.Name)
				fmt.Fprintf(b, "      %s[%s]\n", nodeID, text(n.Name))
				switch {
				case n.Deprecated != "" && n.SkippedByV0:
					classes["deprecatedskipped"] = append(classes["deprecatedskipped"], nodeID)
				case n.Deprecated != "":
					classes["deprecated"] = append(classes["deprecated"], nodeID)
				case n.SkippedByV0:
					classes["skipped"] = append(classes["skipped"], nodeID)
				}
				es := into[n.Name]
				slices.SortStableFunc(es, func(a, b model.GraphEdge) int { return typeOrder[a.Type] - typeOrder[b.Type] })
				for _, e := range es {
					label := "replace"
					switch e.Type {
					case model.EdgeSkips:
						label = "skip"
					case model.EdgeSkipRange:
						label = text("skipRange(" + e.Range + ")")
					}
					fmt.Fprintf(b, "      %s-%s[%s]-- %s --> %s[%s]\n", channelID, id(e.From), text(e.From), label, nodeID, text(n.Name))
					if n.SkippedByV0 {
						skippedLinks = append(skippedLinks, strconv.Itoa(link))
					}
					link++
				}
			}
			b.WriteString("    end\n")
		}
		b.WriteString("  end\n")
	}
	for _, p := range deprecatedPkgs {
		fmt.Fprintf(b, "style %s fill:#989695\n", p)
	}
	for _, c := range deprecatedChannels {
		fmt.Fprintf(b, "style %s fill:#DCD0FF\n", c)
	}
	for _, k := range []string{"deprecated", "deprecatedskipped", "skipped"} {
		if ids := classes[k]; len(ids) > 0 {
			ids = slices.Clone(ids)
			slices.Sort(ids)
			fmt.Fprintf(b, "class %s %s\n", strings.Join(ids, ","), k)
		}
	}
	if len(skippedLinks) > 0 {
		fmt.Fprintf(b, "linkStyle %s stroke:#FF0000,stroke-width:3px,stroke-dasharray:5;\n", strings.Join(skippedLinks, ","))
	}
	return b.Flush()
}
