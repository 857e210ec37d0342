package dot

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/upgraph/upgraph/catalog/model"
)

// catalogLegend explains a catalog graph's styles.
const catalogLegend = "solid: replaces   dashed: skips   dotted: skipRange (labelled)   double border: head   orange: deprecated   red border: skipped by OLM v0"

// WriteChannel writes a package × channel graph (graph/P/CH.json) as a DOT
// digraph: nodes are bundles labelled name and version, in the graph's
// order; edges are typed and drawn from the bundle a cluster runs to the
// bundle it may move to.
func WriteChannel(w io.Writer, g *model.ChannelGraph) error {
	title := g.Package + " / " + g.Channel
	if g.Deprecated != "" {
		title += " (deprecated: " + g.Deprecated + ")"
	}
	if g.HeadError != "" {
		title += "\nno head: " + g.HeadError
	}
	return writeCatalog(w, title, g.Nodes, nil, g.AllEdges(), nil, map[string]bool{g.Head: g.Head != ""})
}

// WritePackage writes a package's cross-channel view (graph/P.json) as a
// DOT digraph; nodes and edges are labelled with their channels, and
// every channel head is marked.
func WritePackage(w io.Writer, g *model.PackageGraph) error {
	title := g.Package + " (every channel; default " + g.DefaultChannel + ")"
	if g.Deprecated != "" {
		title += " (deprecated: " + g.Deprecated + ")"
	}
	nodes := make([]model.GraphNode, len(g.Nodes))
	nodeChannels := make([][]string, len(g.Nodes))
	for i, n := range g.Nodes {
		nodes[i], nodeChannels[i] = n.GraphNode, n.Channels
	}
	all := g.AllEdges()
	edges := make([]model.GraphEdge, len(all))
	edgeChannels := make([][]string, len(all))
	for i, e := range all {
		edges[i], edgeChannels[i] = e.GraphEdge, e.Channels
	}
	heads := map[string]bool{}
	for _, c := range g.Channels {
		if c.Head != "" {
			heads[c.Head] = true
		}
	}
	return writeCatalog(w, title, nodes, nodeChannels, edges, edgeChannels, heads)
}

func writeCatalog(w io.Writer, title string, nodes []model.GraphNode, nodeChannels [][]string,
	edges []model.GraphEdge, edgeChannels [][]string, heads map[string]bool) error {
	b := bufio.NewWriter(w)
	b.WriteString("digraph updates {\n")
	fmt.Fprintf(b, "  graph [rankdir=LR, labelloc=t, fontname=Helvetica, label=%s];\n", quote(title+"\n"+catalogLegend))
	b.WriteString("  node [shape=box, style=rounded, fontname=Helvetica];\n")
	b.WriteString("  edge [fontname=Helvetica, fontsize=10];\n")
	known := map[string]bool{}
	for i, n := range nodes {
		known[n.Name] = true
		label := n.Name + "\n" + n.Version
		if n.Release != "" {
			label += " (release " + n.Release + ")"
		}
		var attrs []string
		attrs = append(attrs, "label="+quote(label))
		var tooltip []string
		if nodeChannels != nil {
			tooltip = append(tooltip, "channels: "+strings.Join(nodeChannels[i], ", "))
		}
		style := "rounded"
		if n.Deprecated != "" {
			style += ",filled"
			attrs = append(attrs, `fillcolor="#E8960F"`)
			tooltip = append(tooltip, "deprecated: "+n.Deprecated)
		}
		if n.SkippedByV0 {
			attrs = append(attrs, `color="#FF0000"`, "penwidth=3")
			tooltip = append(tooltip, "skipped by OLM v0")
		}
		if heads[n.Name] {
			style += ",bold"
			attrs = append(attrs, "peripheries=2")
			tooltip = append(tooltip, "channel head")
		}
		if n.MaxOpenShiftVersion != "" {
			tooltip = append(tooltip, "olm.maxOpenShiftVersion: "+n.MaxOpenShiftVersion)
		}
		if style != "rounded" {
			attrs = append(attrs, "style="+quote(style))
		}
		if len(tooltip) > 0 {
			attrs = append(attrs, "tooltip="+quote(strings.Join(tooltip, "\n")))
		}
		fmt.Fprintf(b, "  %s [%s];\n", quote(n.Name), strings.Join(attrs, ", "))
	}
	// Edges may start at a bundle outside the graph (a chain tail's
	// replaces, a skip of another channel's bundle): drawn dashed grey.
	for _, e := range edges {
		if !known[e.From] {
			known[e.From] = true
			fmt.Fprintf(b, "  %s [style=dashed, color=grey, fontcolor=grey, tooltip=\"not in this graph\"];\n", quote(e.From))
		}
	}
	for i, e := range edges {
		var attrs []string
		switch e.Type {
		case model.EdgeSkips:
			attrs = append(attrs, "style=dashed")
		case model.EdgeSkipRange:
			attrs = append(attrs, "style=dotted", "label="+quote(e.Range))
		}
		tooltip := string(e.Type)
		if edgeChannels != nil {
			tooltip += " (" + strings.Join(edgeChannels[i], ", ") + ")"
		}
		attrs = append(attrs, "tooltip="+quote(tooltip))
		fmt.Fprintf(b, "  %s -> %s [%s];\n", quote(e.From), quote(e.To), strings.Join(attrs, ", "))
	}
	b.WriteString("}\n")
	return b.Flush()
}
