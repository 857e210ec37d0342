package viewer_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/generator/graphdata"
	"github.com/upgraph/upgraph/generator/policy"
	"github.com/upgraph/upgraph/generator/source"
	"github.com/upgraph/upgraph/generator/synth"
	"github.com/upgraph/upgraph/generator/writer"
)

// realGraphData is the graph-data snapshot next to the repository.
const realGraphData = "../../../shared/graph-data"

// largestTree renders, with the viewer, the largest channel × arch (by
// nodes and edges) of the real graph-data with synthesised releases, as
// generator/bench_test.go builds them, and returns the tree and its
// channel and arch.
func largestTree(b *testing.B) (dir, channel, arch string, nodes, edges int) {
	b.Helper()
	if _, err := os.Stat(realGraphData); err != nil {
		b.Skipf("no graph-data snapshot at %s", realGraphData)
	}
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
	ix := policy.NewIndex(built.Graph)
	for _, c := range built.Channels {
		if !policy.ChannelPattern.MatchString(c) {
			continue
		}
		for _, a := range built.Graph.Arches() {
			v := ix.View(c, a)
			if n, e := len(v.Nodes), len(v.Edges)+len(v.ConditionalPairs); n+e > nodes+edges {
				channel, arch, nodes, edges = c, a, n, e
			}
		}
	}
	dir = filepath.Join(b.TempDir(), "tree")
	if _, err := generator.Render(context.Background(), built, generator.RenderOptions{
		Channels: regexp.MustCompile("^" + regexp.QuoteMeta(channel) + "$"), Arches: []string{arch},
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(0, 0),
	}); err != nil {
		b.Fatal(err)
	}
	return dir, channel, arch, nodes, edges
}

// BenchmarkFirstRender measures, in headless Chromium, the time from
// navigation to the first complete render of the viewer (index.json, the
// channel graph and the per-version file read and indexed, the layout
// computed, the graph drawn and painted) for the largest channel of a
// real-scale tree: with the default selection, with the release that has
// the most neighbours, and in the full view. first-render-ms is the
// page's own figure (performance.now() at the render, from the start of
// the navigation); ns/op adds the DevTools round trips.
func BenchmarkFirstRender(b *testing.B) {
	dir, channel, arch, nodes, edges := largestTree(b)
	_, doc := readDoc(b, dir, "graph/"+arch+"/"+channel+".json")
	st, err := os.Stat(filepath.Join(dir, "graph", arch, channel+".json"))
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
	b.Logf("largest channel: %s/%s, %d releases, %d edges (%d conditional groups), %.1f MB; busiest release %s (%d edges)",
		arch, channel, nodes, edges, len(doc.ConditionalEdges), float64(st.Size())/1e6, doc.Nodes[busiest].Version, degree[busiest])
	origin := serveTree(b, dir)
	browser := newBrowser(b)
	for _, bc := range []struct {
		name  string
		query url.Values
	}{
		{"default", url.Values{"channel": {channel}, "arch": {arch}}},
		{"busiest-release", url.Values{"channel": {channel}, "arch": {arch}, "from": {doc.Nodes[busiest].Version}}},
		{"full", url.Values{"channel": {channel}, "arch": {arch}, "view": {"full"}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p := newPage(b, browser, origin)
			var total, load float64
			n := 0
			for b.Loop() {
				p.open(b, bc.query)
				var tm pageTimings
				p.eval(b, `window.upgraphViewer.timings`, &tm)
				total += tm.FirstRender
				load += tm.GraphLoad
				n++
			}
			b.ReportMetric(total/float64(n), "first-render-ms")
			b.ReportMetric(load/float64(n), "graph-load-ms")
			var s state
			p.eval(b, readState, &s)
			var raw map[string]float64
			p.eval(b, `window.upgraphViewer.timings`, &raw)
			b.Logf("%s: timings (ms) %v", bc.name, raw)
			b.Logf("%s: %d nodes and %d edges drawn; %s", bc.name, len(s.GraphNodes), len(s.GraphEdges), fmt.Sprint(s.Status))
			p.screenshot(b, "viewer-large-"+bc.name+".png")
		})
	}
}
