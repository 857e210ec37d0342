package viewer_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/upgraph/upgraph/tools/path"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/version"
	"github.com/upgraph/upgraph/viewer"
)

// Browser tests: the viewer of a generated demo tree, served by the real
// site handler, in a real headless Chromium. Every page also fails its
// test on a console error or warning, an uncaught exception, a failed load
// or a request outside the server (see page.check).

// graphDoc is a policy-engine graph document.
type graphDoc struct {
	Nodes []struct {
		Version  string            `json:"version"`
		Payload  string            `json:"payload"`
		Metadata map[string]string `json:"metadata"`
	} `json:"nodes"`
	Edges            [][2]int `json:"edges"`
	ConditionalEdges []struct {
		Edges []struct{ From, To string } `json:"edges"`
		Risks []struct {
			URL     string `json:"url"`
			Name    string `json:"name"`
			Message string `json:"message"`
		} `json:"risks"`
	} `json:"conditionalEdges"`
}

func readDoc(t testing.TB, dir, name string) ([]byte, graphDoc) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	var d graphDoc
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return data, d
}

// wantUpdates is what a per-version file says the updates of version are:
// the targets of the edges leaving it, and of its conditional edges with
// their risks, newest first (the order the viewer lists them in).
func wantUpdates(t testing.TB, d graphDoc, v string) ([]string, []shownCond) {
	t.Helper()
	self := slices.IndexFunc(d.Nodes, func(n struct {
		Version  string            `json:"version"`
		Payload  string            `json:"payload"`
		Metadata map[string]string `json:"metadata"`
	}) bool {
		return n.Version == v
	})
	if self < 0 {
		t.Fatalf("per-version file of %s lacks its node", v)
	}
	rec := []string{}
	for _, e := range d.Edges {
		if e[0] == self {
			rec = append(rec, d.Nodes[e[1]].Version)
		}
	}
	cond := []shownCond{}
	for _, ce := range d.ConditionalEdges {
		for _, e := range ce.Edges {
			if e.From != v {
				continue
			}
			c := shownCond{To: e.To, Risks: []shownRisk{}}
			for _, r := range ce.Risks {
				c.Risks = append(c.Risks, shownRisk{Name: r.Name, Message: strings.TrimSpace(r.Message), URL: r.URL})
			}
			cond = append(cond, c)
		}
	}
	newestFirst := func(a, b string) int { return -version.Compare(version.MustParse(a), version.MustParse(b)) }
	slices.SortFunc(rec, newestFirst)
	slices.SortFunc(cond, func(a, b shownCond) int { return newestFirst(a.To, b.To) })
	return rec, cond
}

func readManifest(t testing.TB, dir string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestViewerLoads: the page loads from the tree, lists its architectures
// and channels from the viewer's table of graphs (not index.json), selects
// a release and draws the graph around it.
func TestViewerLoads(t *testing.T) {
	dir := demoTree(t)
	origin := serveTree(t, dir)
	p := newPage(t, newBrowser(t), origin)
	p.open(t, nil)
	checkLoaded(t, p, dir, viewer.SummaryFile)
	// Then the generation time, from the start of index.json, requested
	// only after the first render.
	p.poll(t, `document.getElementById('generated').textContent === 'generated 2026-01-02T03:04:05Z'`)
	var early []string
	p.eval(t, `performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/index.json') && e.startTime < window.upgraphViewer.timings.firstRender).map((e) => e.name)`, &early)
	if len(early) > 0 || !p.requested(manifest.FileName) {
		t.Errorf("index.json requested before the first render: %v (requested at all: %v)", early, p.requested(manifest.FileName))
	}
	p.screenshot(t, "viewer-default.png")
}

// TestViewerWithoutSummary: in a tree without the viewer's table of graphs
// (written by an older upgraph) the page reads index.json instead.
func TestViewerWithoutSummary(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tree")
	if err := os.CopyFS(dir, os.DirFS(demoTree(t))); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(viewer.SummaryFile))); err != nil {
		t.Fatal(err)
	}
	// index.json as such a tree has it: without the table.
	var index map[string]json.RawMessage
	data, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
	if err == nil {
		err = json.Unmarshal(data, &index)
	}
	var files map[string]json.RawMessage
	if err == nil {
		err = json.Unmarshal(index["files"], &files)
	}
	if err != nil {
		t.Fatal(err)
	}
	delete(files, viewer.SummaryFile)
	if index["files"], err = json.Marshal(files); err == nil {
		data, err = json.Marshal(index)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, manifest.FileName), data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	origin := serveTree(t, dir)
	p := newPage(t, newBrowser(t), origin)
	p.allow(viewer.SummaryFile) // its 404 is logged
	p.open(t, url.Values{"channel": {"fast-4.16"}, "arch": {"arm64"}, "from": {"4.16.0"}})
	if s := p.state(t); s.Channel != "fast-4.16" || s.Arch != "arm64" || s.Current != "4.16.0" || len(s.Conditional) != 1 {
		t.Errorf("deep link without the table: %s %s %s, conditional %v", s.Channel, s.Arch, s.Current, s.Conditional)
	}
	p.open(t, nil)
	checkLoaded(t, p, dir, manifest.FileName)
	p.poll(t, `document.getElementById('generated').textContent === 'generated 2026-01-02T03:04:05Z'`)
}

// checkLoaded checks the page's default state against the tree, and that
// it read the list of graphs from summaryFile.
func checkLoaded(t *testing.T, p *page, dir, summaryFile string) {
	t.Helper()
	s := p.state(t)
	if s.SummaryFile != summaryFile {
		t.Errorf("the page read the list of graphs from %q, want %s", s.SummaryFile, summaryFile)
	}
	m := readManifest(t, dir)
	if !slices.Equal(s.Arches, m.Arches) {
		t.Errorf("architectures %v, index.json has %v", s.Arches, m.Arches)
	}
	if !slices.Equal(s.Channels, m.Channels) {
		t.Errorf("channels %v, index.json has %v", s.Channels, m.Channels)
	}
	// By default: amd64, the first channel (candidate-4.15: 4.15.0–4.15.2),
	// its newest release with an update (4.15.2 has none).
	if m.Channels[0] != "candidate-4.15" {
		t.Fatalf("the demo's first channel is %s, want candidate-4.15", m.Channels[0])
	}
	if s.Arch != "amd64" || s.Channel != m.Channels[0] || s.Current != "4.15.1" || s.Selected != "4.15.1" {
		t.Errorf("default state %s %s %s (selected %s), want amd64 %s 4.15.1", s.Arch, s.Channel, s.Current, s.Selected, m.Channels[0])
	}
	if !slices.Equal(s.Versions, []string{"4.15.2", "4.15.1", "4.15.0"}) {
		t.Errorf("versions listed: %v", s.Versions)
	}
	if !slices.Contains(s.GraphNodes, "4.15.1") || !slices.Contains(s.GraphEdges, [2]string{"4.15.1", "4.15.2"}) {
		t.Errorf("graph shows %v %v", s.GraphNodes, s.GraphEdges)
	}
	if !strings.Contains(s.Location.Search, "channel="+m.Channels[0]) {
		t.Errorf("location %q does not record the state", s.Location.Search)
	}
	if !strings.Contains(s.Status, "3 releases") || !strings.Contains(s.Location.Search, "from=4.15.1") {
		t.Errorf("status %q, location %q", s.Status, s.Location.Search)
	}
}

// TestVersionUpdates: for every release of every channel × arch, picking
// it in the list shows exactly the updates its per-version file contains,
// risks (name, message, link) included.
func TestVersionUpdates(t *testing.T) {
	dir := demoTree(t)
	origin := serveTree(t, dir)
	p := newPage(t, newBrowser(t), origin)
	m := readManifest(t, dir)
	checked, conditional := 0, 0
	for _, g := range m.Graphs {
		if len(g.Versions) == 0 {
			continue
		}
		p.open(t, url.Values{"channel": {g.Channel}, "arch": {g.Arch}})
		for _, v := range g.Versions {
			p.click(t, `#versions button[data-version="`+v+`"]`)
			s := p.state(t)
			if s.Current != v || s.Selected != v || s.Channel != g.Channel || s.Arch != g.Arch {
				t.Fatalf("%s/%s: clicked %s, page shows %s (selected %s) in %s/%s", g.Arch, g.Channel, v, s.Current, s.Selected, s.Arch, s.Channel)
			}
			_, d := readDoc(t, dir, "graph/"+g.Arch+"/"+g.Channel+"/"+manifest.VersionFileName(v))
			rec, cond := wantUpdates(t, d, v)
			if !slices.Equal(s.Recommended, rec) {
				t.Errorf("%s/%s %s: recommended updates %v, the per-version file has %v", g.Arch, g.Channel, v, s.Recommended, rec)
			}
			if got, want := jsonString(s.Conditional), jsonString(cond); got != want {
				t.Errorf("%s/%s %s: conditional updates %s, the per-version file has %s", g.Arch, g.Channel, v, got, want)
			}
			// The graph around it shows the release and all its targets.
			for _, to := range append(slices.Clone(rec), targets(cond)...) {
				if !slices.Contains(s.GraphEdges, [2]string{v, to}) {
					t.Errorf("%s/%s %s: the graph lacks the edge to %s", g.Arch, g.Channel, v, to)
				}
			}
			checked++
			conditional += len(cond)
		}
	}
	if checked != m.Counts.VersionGraphs || conditional == 0 {
		t.Errorf("checked %d releases (%d conditional updates), the tree has %d per-version graphs", checked, conditional, m.Counts.VersionGraphs)
	}
	// The release with a conditional update, for the artifacts.
	p.open(t, url.Values{"channel": {"fast-4.16"}, "arch": {"amd64"}, "from": {"4.16.0"}})
	p.screenshot(t, "viewer-conditional.png")
}

func targets(cs []shownCond) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.To)
	}
	return out
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// goPlan is the Go planner's answer (tools/path, what `upgraph path`
// prints) in the viewer's shape.
func goPlan(t testing.TB, g *path.Graph, from, to string) (bool, []shownHop) {
	t.Helper()
	p, err := path.Plan(g, from, to, path.Options{})
	if errors.Is(err, path.ErrNoPath) {
		return false, []shownHop{}
	}
	if err != nil {
		t.Fatal(err)
	}
	hops := []shownHop{}
	for _, h := range p.Hops {
		sh := shownHop{From: h.From, To: h.To, Conditional: h.Conditional, Risks: []shownRisk{}}
		for _, r := range h.Risks {
			sh.Risks = append(sh.Risks, shownRisk{Name: r.Name, Message: strings.TrimSpace(r.Message), URL: r.URL})
		}
		hops = append(hops, sh)
	}
	return true, hops
}

// TestPathMatchesGo: the path the page plans is the Go planner's, for
// every pair of releases of every channel × arch of the demo tree (the
// page's planner, called in the page), and as displayed hop by hop, with
// risks, for pairs chosen in the target list.
func TestPathMatchesGo(t *testing.T) {
	dir := demoTree(t)
	origin := serveTree(t, dir)
	p := newPage(t, newBrowser(t), origin)
	m := readManifest(t, dir)
	pairs, withPath, conditionalHops := 0, 0, 0
	for _, mg := range m.Graphs {
		data, _ := readDoc(t, dir, mg.Path)
		g, err := path.Decode(mg.Path, data)
		if err != nil {
			t.Fatal(err)
		}
		p.open(t, url.Values{"channel": {mg.Channel}, "arch": {mg.Arch}})
		var got map[string]struct {
			Found bool `json:"found"`
			Hops  []struct {
				From        string   `json:"from"`
				To          string   `json:"to"`
				Conditional bool     `json:"conditional"`
				Risks       []string `json:"risks"`
			} `json:"hops"`
		}
		p.eval(t, `(() => {
			const g = window.upgraphViewer.graph, out = {};
			for (const a of g.nodes) for (const b of g.nodes) out[a.version + ' ' + b.version] = g.planPath(a.version, b.version);
			return out;
		})()`, &got)
		for _, from := range mg.Versions {
			for _, to := range mg.Versions {
				found, hops := goPlan(t, g, from, to)
				js := got[from+" "+to]
				var jsHops []shownHop
				for _, h := range js.Hops {
					sh := shownHop{From: h.From, To: h.To, Conditional: h.Conditional, Risks: []shownRisk{}}
					for _, r := range h.Risks {
						sh.Risks = append(sh.Risks, shownRisk{Name: r})
					}
					jsHops = append(jsHops, sh)
				}
				names := func(hs []shownHop) string {
					out := []shownHop{}
					for _, h := range hs {
						h2 := h
						h2.Risks = []shownRisk{}
						for _, r := range h.Risks {
							h2.Risks = append(h2.Risks, shownRisk{Name: r.Name})
						}
						out = append(out, h2)
					}
					return jsonString(out)
				}
				if js.Found != found || names(jsHops) != names(hops) {
					t.Errorf("%s/%s %s → %s: page plans %v %s, tools/path %v %s", mg.Arch, mg.Channel, from, to, js.Found, names(jsHops), found, names(hops))
				}
				pairs++
				if found && len(hops) > 0 {
					withPath++
				}
			}
		}
	}
	if withPath == 0 {
		t.Fatal("no pair has a path")
	}

	// As displayed, after choosing the target in the list: every target
	// reachable from 4.15.0 in fast-4.16 (amd64), the conditional hop among them.
	data, _ := readDoc(t, dir, "graph/amd64/fast-4.16.json")
	g, err := path.Decode("fast-4.16", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{"4.15.0", "4.16.0"} {
		p.open(t, url.Values{"channel": {"fast-4.16"}, "arch": {"amd64"}, "from": {from}})
		var options []string
		p.eval(t, `[...document.querySelectorAll('#to option')].map((o) => o.value).filter(Boolean)`, &options)
		if len(options) == 0 {
			t.Fatalf("no target offered from %s", from)
		}
		for _, to := range options {
			before := p.renders(t)
			p.do(t, chromedp.SetValue(chromedp.CSS("#to"), to), chromedp.Evaluate[chromedp.Void](`document.getElementById('to').dispatchEvent(new Event('change'))`))
			p.waitRender(t, before)
			// A render the previous target started can complete after
			// this one began: read the state once the hops shown end at
			// this target (bounded; a wrong page is reported below).
			s := p.state(t)
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && (len(s.Hops) == 0 || s.Hops[len(s.Hops)-1].To != to); {
				time.Sleep(20 * time.Millisecond)
				s = p.state(t)
			}
			found, want := goPlan(t, g, from, to)
			if !found {
				t.Errorf("%s → %s offered as a target but tools/path finds no path", from, to)
				continue
			}
			if s.To != to || jsonString(s.Hops) != jsonString(want) {
				t.Errorf("%s → %s: page shows %s, tools/path plans %s", from, to, jsonString(s.Hops), jsonString(want))
			}
			for _, h := range want {
				conditionalHops += len(h.Risks)
				if !slices.Contains(s.GraphEdges, [2]string{h.From, h.To}) {
					t.Errorf("%s → %s: the graph does not show the hop %s → %s", from, to, h.From, h.To)
				}
			}
		}
	}
	if conditionalHops == 0 {
		t.Error("no displayed path has a conditional hop with risks")
	}
	t.Logf("%d pairs compared, %d with a path", pairs, withPath)
	p.open(t, url.Values{"channel": {"fast-4.16"}, "arch": {"amd64"}, "from": {"4.15.1"}, "to": {"4.16.2"}})
	p.screenshot(t, "viewer-path.png")
}

// TestDeepLink: ?channel=&arch=&from=&to= restores the whole state, every
// change is recorded in the URL, reloading keeps it and Back returns to the
// previous one.
func TestDeepLink(t *testing.T) {
	dir := demoTree(t)
	origin := serveTree(t, dir)
	p := newPage(t, newBrowser(t), origin)
	p.open(t, url.Values{"channel": {"fast-4.16"}, "arch": {"arm64"}, "from": {"4.16.0"}, "to": {"4.16.2"}})
	s := p.state(t)
	if s.Channel != "fast-4.16" || s.Arch != "arm64" || s.Current != "4.16.0" || s.Selected != "4.16.0" || s.To != "4.16.2" {
		t.Fatalf("deep link restored %s %s %s → %s", s.Channel, s.Arch, s.Current, s.To)
	}
	if len(s.Hops) != 1 || !s.Hops[0].Conditional || s.Hops[0].Risks[0].Name != "ExampleEtcdRisk" {
		t.Errorf("deep-linked path: %s", jsonString(s.Hops))
	}
	if len(s.Recommended) != 1 || s.Recommended[0] != "4.16.1" || len(s.Conditional) != 1 || s.Conditional[0].To != "4.16.2" {
		t.Errorf("deep-linked updates: %v %s", s.Recommended, jsonString(s.Conditional))
	}

	// A new selection is recorded; a reload keeps it.
	p.click(t, `#versions button[data-version="4.15.1"]`)
	s = p.state(t)
	q, _ := url.ParseQuery(strings.TrimPrefix(s.Location.Search, "?"))
	if q.Get("from") != "4.15.1" || q.Get("to") != "4.16.2" || q.Get("channel") != "fast-4.16" || q.Get("arch") != "arm64" {
		t.Errorf("after a click the URL is %s", s.Location.Search)
	}
	p.do(t, chromedp.Reload())
	p.waitRender(t, 0)
	if s2 := p.state(t); s2.Current != "4.15.1" || s2.To != "4.16.2" || len(s2.Hops) != 1 || s2.Hops[0].Conditional {
		t.Errorf("after a reload: %s → %s, %d hops", s2.Current, s2.To, len(s2.Hops))
	}
	// Back returns to the deep-linked state.
	before := p.renders(t)
	p.do(t, chromedp.NavigateBack())
	p.waitRender(t, before)
	if s3 := p.state(t); s3.Current != "4.16.0" || s3.To != "4.16.2" {
		t.Errorf("after Back: %s → %s", s3.Current, s3.To)
	}

	// Unknown values fall back to what the tree has, without errors but
	// the 404s of the files the link names (requested before the list of
	// graphs is read).
	p.allow("/graph/s390x/nope-1.0.json", "/graph/s390x/nope-1.0/9.9.9.json")
	p.open(t, url.Values{"channel": {"nope-1.0"}, "arch": {"s390x"}, "from": {"9.9.9"}, "to": {"1.0.0"}})
	s = p.state(t)
	if s.Arch != "amd64" || s.Channel != "candidate-4.15" || s.Current != "4.15.1" || s.To != "" {
		t.Errorf("bad deep link: %s %s %s → %q", s.Arch, s.Channel, s.Current, s.To)
	}
}

// TestSearchAndViews: the version filter narrows the list and Enter picks
// its first entry; the full view draws the whole channel.
func TestSearchAndViews(t *testing.T) {
	dir := demoTree(t)
	origin := serveTree(t, dir)
	p := newPage(t, newBrowser(t), origin)
	p.open(t, url.Values{"channel": {"stable-4.16"}, "arch": {"amd64"}})
	p.do(t, chromedp.SendKeys(chromedp.CSS("#search"), "4.15"))
	var listed []string
	p.poll(t, `[...document.querySelectorAll('#versions button[data-version]')].every((b) => b.dataset.version.startsWith('4.15.'))`)
	p.eval(t, `[...document.querySelectorAll('#versions button[data-version]')].map((b) => b.dataset.version)`, &listed)
	if !slices.Equal(listed, []string{"4.15.2", "4.15.1", "4.15.0"}) {
		t.Errorf("filtered list: %v", listed)
	}
	before := p.renders(t)
	p.do(t, chromedp.SendKeys(chromedp.CSS("#search"), "\r"))
	p.waitRender(t, before)
	s := p.state(t)
	if s.Current != "4.15.2" || !strings.Contains(s.Location.Search, "q=4.15") {
		t.Errorf("Enter in the filter selected %s (URL %s)", s.Current, s.Location.Search)
	}

	p.click(t, "#view-full")
	s = p.state(t)
	_, d := readDoc(t, dir, "graph/amd64/stable-4.16.json")
	edges := len(d.Edges)
	for _, ce := range d.ConditionalEdges {
		edges += len(ce.Edges)
	}
	if len(s.GraphNodes) != len(d.Nodes) || len(s.GraphEdges) != edges || !strings.Contains(s.Location.Search, "view=full") {
		t.Errorf("full view: %d nodes, %d edges (URL %s); the channel has %d and %d", len(s.GraphNodes), len(s.GraphEdges), s.Location.Search, len(d.Nodes), edges)
	}
	p.screenshot(t, "viewer-full.png")
	p.click(t, "#view-around")
	if s = p.state(t); strings.Contains(s.Location.Search, "view=full") {
		t.Errorf("back to the neighbourhood, the URL still says %s", s.Location.Search)
	}
}
