package viewer_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/synth"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// realGraphData is the graph-data snapshot next to the repository.
const realGraphData = "../../../shared/graph-data"

// benchTree returns the real-scale tree (real graph-data, releases
// synthesised as generator/bench_test.go builds them, every channel ×
// arch, with the viewer) and its largest channel × arch by nodes and
// edges. $UPGRAPH_BENCH_TREE names a directory to keep it in: a tree
// already there (from an earlier run, or `upgraph synth-releases` then
// `upgraph generate`) is measured as it is; otherwise it is rendered
// there, or into a temporary directory (about 20 s and 2 GB).
func benchTree(b *testing.B) (dir, channel, arch string, nodes, edges int) {
	b.Helper()
	dir = os.Getenv("UPGRAPH_BENCH_TREE")
	if dir == "" {
		dir = filepath.Join(b.TempDir(), "tree")
	}
	if _, err := os.Stat(filepath.Join(dir, manifest.FileName)); err != nil {
		renderRealTree(b, dir)
	}
	m := readManifest(b, dir)
	if _, ok := m.Files["index.html"]; !ok {
		b.Fatalf("%s has no viewer", dir)
	}
	for _, g := range m.Graphs {
		if n, e := g.Nodes, g.Edges+g.ConditionalEdges; n+e > nodes+edges {
			channel, arch, nodes, edges = g.Channel, g.Arch, n, e
		}
	}
	if nodes == 0 {
		b.Fatalf("%s has no graph", dir)
	}
	return dir, channel, arch, nodes, edges
}

func renderRealTree(b *testing.B, dir string) {
	b.Helper()
	if _, err := os.Stat(realGraphData); err != nil {
		b.Skipf("no graph-data snapshot at %s", realGraphData)
	}
	start := time.Now()
	gd := os.DirFS(realGraphData)
	releases, err := synth.MetadataFS(gd)
	if err != nil {
		b.Fatal(err)
	}
	built, err := generator.Build(context.Background(), &source.MetadataDir{Dir: "synthesised", FS: releases}, gd,
		generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		b.Fatal(err)
	}
	m, err := generator.Render(context.Background(), built, generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(0, 0),
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("rendered the real-scale tree into %s in %s: %d files, %d graphs", dir, time.Since(start).Round(time.Second), m.Counts.Files, m.Counts.Graphs)
}

// phases are the page's timings (window.upgraphViewer.timings) the
// benchmark reports. Points in time from the start of the navigation:
// start (the script runs), summary (the table of graphs is read),
// cytoscapeLoaded (its script has run), cytoscape (it is set up), graph
// (the channel graph is fetched, parsed and indexed), drawStart (the
// elements go to cytoscape, the details being in), firstRender (drawn and
// painted). Durations: graphFetch (from its request to parsed),
// graphIndex, panels (version list, targets, path), layout, add
// (elements given to cytoscape), draw (add and the frames until painted).
var phases = []string{"start", "summary", "cytoscapeLoaded", "cytoscape", "graph", "drawStart", "firstRender",
	"graphFetch", "graphIndex", "panels", "layout", "add", "draw"}

// BenchmarkFirstRender measures, in headless Chromium, the time from
// navigation to the first complete render of the viewer (the table of
// graphs, the channel graph and the per-version file read and indexed,
// the layout computed, the graph drawn and painted) for the largest
// channel of the real-scale tree: with the default selection, with the
// release that has the most neighbours, and in the full view.
// first-render-ms is the median of the page's own figure (performance.now()
// at the render, from the start of the navigation); ns/op adds the
// DevTools round trips. The log has the median and range of every phase.
func BenchmarkFirstRender(b *testing.B) {
	dir, channel, arch, nodes, edges := benchTree(b)
	_, doc := readDoc(b, dir, "graph/"+arch+"/"+channel+".json")
	st, err := os.Stat(filepath.Join(dir, "graph", arch, channel+".json"))
	if err != nil {
		b.Fatal(err)
	}
	ix, err := os.Stat(filepath.Join(dir, manifest.FileName))
	if err != nil {
		b.Fatal(err)
	}
	// The release with the most updates and predecessors.
	degree := make([]int, len(doc.Nodes))
	for _, e := range doc.Edges {
		degree[e[0]]++
		degree[e[1]]++
	}
	busiest := 0
	for i, d := range degree {
		if d > degree[busiest] {
			busiest = i
		}
	}
	b.Logf("largest channel: %s/%s, %d releases, %d edges (%d conditional groups), %.1f MB; busiest release %s (%d edges); index.json %.1f MB",
		arch, channel, nodes, edges, len(doc.ConditionalEdges), float64(st.Size())/1e6, doc.Nodes[busiest].Version, degree[busiest], float64(ix.Size())/1e6)
	benchFirstRenders(b, dir, phases, []benchCase{
		{"default", url.Values{"channel": {channel}, "arch": {arch}}},
		{"busiest-release", url.Values{"channel": {channel}, "arch": {arch}, "from": {doc.Nodes[busiest].Version}}},
		{"full", url.Values{"channel": {channel}, "arch": {arch}, "view": {"full"}}},
	}, func(b *testing.B, name string, p *page, runs map[string][]float64, timings string) {
		b.ReportMetric(median(runs["graphFetch"])+median(runs["graphIndex"]), "graph-load-ms")
		var s state
		p.eval(b, readState, &s)
		var from string
		p.eval(b, `window.upgraphViewer.summaryFile || 'index.json'`, &from)
		b.Logf("%s: %d runs, median (range) ms:%s; graphs listed from %s", name, len(runs["firstRender"]), timings, from)
		b.Logf("%s: %d nodes and %d edges drawn; %s", name, len(s.GraphNodes), len(s.GraphEdges), s.Status)
		p.screenshot(b, "viewer-large-"+name+".png")
	})
}

// benchCase is a page a first-render benchmark opens: the viewer with
// query.
type benchCase struct {
	name  string
	query url.Values
}

// benchFirstRenders logs the load average, serves the tree in dir to a
// headless Chromium and runs a sub-benchmark per case: it opens the
// case's page once per iteration, collects the page's timings
// (window.upgraphViewer.timings) of phases per run and reports the median
// firstRender as first-render-ms; then report reports and logs the rest,
// given the page, the runs and the median (range) of each phase as text.
func benchFirstRenders(b *testing.B, dir string, phases []string, cases []benchCase,
	report func(b *testing.B, name string, p *page, runs map[string][]float64, timings string)) {
	b.Helper()
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		b.Logf("load average: %s", strings.TrimSpace(string(load)))
	}
	origin := serveTree(b, dir)
	browser := newBrowser(b)
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			p := newPage(b, browser, origin)
			runs := map[string][]float64{}
			for b.Loop() {
				p.open(b, bc.query)
				var tm map[string]float64
				p.eval(b, `window.upgraphViewer.timings`, &tm)
				for _, ph := range phases {
					runs[ph] = append(runs[ph], tm[ph])
				}
			}
			b.ReportMetric(median(runs["firstRender"]), "first-render-ms")
			var sb strings.Builder
			for _, ph := range phases {
				r := slices.Sorted(slices.Values(runs[ph]))
				fmt.Fprintf(&sb, " %s %.0f (%.0f–%.0f)", ph, median(r), r[0], r[len(r)-1])
			}
			report(b, bc.name, p, runs, sb.String())
		})
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
