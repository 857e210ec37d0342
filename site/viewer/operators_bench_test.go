package viewer_test

import (
	"path/filepath"
	"testing"

	catviews "github.com/upgraph/upgraph/catalog/views"
)

// opPhases are the page's timings (window.upgraphViewer.timings) the
// operators benchmark reports. Points in time from the start of the
// navigation: start (the script runs), summary (the list of catalogs is
// read), cytoscape (set up), drawStart (the elements go to cytoscape, the
// files being in and laid out), firstRender (drawn and painted).
// Durations: opsDocs (from the view's start to the package's, channel's
// and installed bundle's files parsed), panels (the details), layout (in
// the worker), add (elements given to cytoscape), draw (add and the
// frames until painted).
var opPhases = []string{"start", "summary", "cytoscape", "drawStart", "firstRender", "opsDocs", "panels", "layout", "add", "draw"}

// BenchmarkOperatorsFirstRender measures, in headless Chromium, the time
// from navigation to the first complete render of the operators view
// (the list of catalogs, the package's graph, the channel's graph and the
// installed bundle's file read, the layout computed in the worker, the
// graph drawn and painted) for the largest package of the shared catalog
// (bundles plus edges of its graph/<P>.json): its default channel, its
// largest channel with the oldest entry installed (the longest OLM v0
// path), and all its channels. first-render-ms is the median of the
// page's own figure; the log has the median and range of every phase.
// The tree is the shared catalog alone (a few seconds to render).
func BenchmarkOperatorsFirstRender(b *testing.B) {
	needSharedCatalog(b)
	dir := filepath.Join(b.TempDir(), "tree")
	renderCatalogTree(b, dir, false, loadCatalog(b, "community", sharedCatalog))
	const catalog = "community"
	base := catviews.Dir(catalog)
	var cf catalogFile
	readJSONFile(b, dir, base+catviews.SummaryFile, &cf)
	var pkg string
	var size, bundles, edges int
	for _, p := range cf.Packages {
		var g opGraphFile
		readJSONFile(b, dir, base+catviews.PackageGraphPath(p.Name), &g)
		if n := len(g.Nodes) + len(g.allEdges()); n > size {
			pkg, size, bundles, edges = p.Name, n, len(g.Nodes), len(g.allEdges())
		}
	}
	// Its largest channel, and the entry with the longest OLM v0 path.
	var channel, installed string
	var chSize, chNodes, chEdges, longest int
	for _, c := range cf.Packages[cf.find(pkg)].Channels {
		var g opGraphFile
		readJSONFile(b, dir, base+catviews.ChannelGraphPath(pkg, c.Name), &g)
		if n := len(g.Nodes) + len(g.allEdges()); n > chSize {
			channel, chSize, chNodes, chEdges = c.Name, n, len(g.Nodes), len(g.allEdges())
		}
	}
	var g opGraphFile
	readJSONFile(b, dir, base+catviews.ChannelGraphPath(pkg, channel), &g)
	installed = g.Nodes[len(g.Nodes)-1].Name
	for _, n := range g.Nodes {
		nf := readNextFile(b, dir, base, pkg, channel, n.Name)
		if len(nf.OlmV0.PathToHead) > longest {
			installed, longest = n.Name, len(nf.OlmV0.PathToHead)
		}
	}
	b.Logf("largest package: %s, %d bundles, %d edges in graph/%s.json; largest channel %s: %d bundles, %d edges; installed %s (%d OLM v0 hops to the head)",
		pkg, bundles, edges, pkg, channel, chNodes, chEdges, installed, longest)
	benchFirstRenders(b, dir, opPhases, []benchCase{
		{"default-channel", opQuery("catalog", catalog, "package", pkg)},
		{"largest-channel-installed", opQuery("catalog", catalog, "package", pkg, "channel", channel, "installed", installed)},
		{"all-channels", opQuery("catalog", catalog, "package", pkg, "view", "package")},
	}, func(b *testing.B, name string, p *page, runs map[string][]float64, timings string) {
		s := p.opState(b)
		b.Logf("%s: %d runs, median (range) ms:%s", name, len(runs["firstRender"]), timings)
		b.Logf("%s: %d nodes and %d edges drawn; %s", name, len(s.Nodes), len(s.Edges), s.Status)
		p.screenshot(b, "viewer-operators-large-"+name+".png")
	})
}
