package viewer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	upgraph "github.com/upgraph/upgraph"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/catalog/views/viewstest"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	gensource "github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
	"github.com/upgraph/upgraph/viewer"
)

// Browser tests of the operators view: a tree of the demo releases, the
// shared real catalog (community) and a fixture catalog with what the
// shared one lacks (deprecations of every kind, names that need encoding,
// a hashed file name), served by the real site handler.

// sharedCatalog is the real FBC root next to the repository;
// fixtureCatalog the fixture.
const (
	sharedCatalog  = "../../../shared/catalogs/community-operators-prod-v4.21/configs"
	fixtureCatalog = "testdata/catalog"
)

// loadCatalog reads and validates an FBC directory as generate does.
func loadCatalog(tb testing.TB, name, dir string) *catviews.Catalog {
	tb.Helper()
	return viewstest.Load(tb, name, "dir:"+dir, false)
}

func needSharedCatalog(tb testing.TB) {
	tb.Helper()
	if _, err := os.Stat(sharedCatalog); err != nil {
		tb.Skipf("shared catalog not available: %v", err)
	}
}

// renderCatalogTree renders the catalogs, with the demo releases when
// withReleases, and the viewer into dir.
func renderCatalogTree(tb testing.TB, dir string, withReleases bool, cats ...*catviews.Catalog) {
	tb.Helper()
	var b *generator.Built
	if withReleases {
		var err error
		b, err = generator.Build(context.Background(), &gensource.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
			upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
		if err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := generator.Render(context.Background(), b, generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Catalogs: cats,
	}); err != nil {
		tb.Fatal(err)
	}
}

var (
	opOnce sync.Once
	opDir  string
)

// operatorsTree is the demo releases with the catalogs community (the
// shared catalog) and fixture, shared by the tests of this process.
func operatorsTree(t testing.TB) string {
	t.Helper()
	needSharedCatalog(t)
	opOnce.Do(func() {
		dir := filepath.Join(testTmp, "operators")
		renderCatalogTree(t, dir, true, loadCatalog(t, "community", sharedCatalog), loadCatalog(t, "fixture", fixtureCatalog))
		opDir = dir
	})
	if opDir == "" {
		t.Fatal("the operators tree was not rendered")
	}
	return opDir
}

// The generated files, as the tests read them.

type opNode struct {
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Deprecated  string   `json:"deprecated"`
	SkippedByV0 bool     `json:"skippedByV0"`
	Channels    []string `json:"channels"`
	// A skipRange, written once on the node that declares it, with the
	// nodes it holds as [first, last] index spans: a channel graph's
	// skipRange and skipRangeFrom, a package graph's skipRanges.
	SkipRange     string   `json:"skipRange"`
	SkipRangeFrom [][2]int `json:"skipRangeFrom"`
	SkipRanges    []struct {
		Range string   `json:"range"`
		From  [][2]int `json:"from"`
	} `json:"skipRanges"`
}

type opEdge struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Type  string `json:"type"`
	Range string `json:"range"`
}

type opGraphFile struct {
	Package        string `json:"package"`
	Channel        string `json:"channel"`
	Head           string `json:"head"`
	DefaultChannel string `json:"defaultChannel"`
	Deprecated     string `json:"deprecated"`
	Channels       []struct {
		Name       string `json:"name"`
		Head       string `json:"head"`
		Deprecated string `json:"deprecated"`
	} `json:"channels"`
	Nodes []opNode `json:"nodes"`
	Edges []opEdge `json:"edges"`
}

// allEdges is every edge the file holds: its edges (replaces, skips)
// and, per node, a skipRange edge from each node its skipRange spans
// hold (docs/operators.md, read here apart from the viewer's fileEdges).
func (g opGraphFile) allEdges() []opEdge {
	out := slices.Clone(g.Edges)
	expand := func(to, rng string, spans [][2]int) {
		for _, sp := range spans {
			for i := sp[0]; i <= sp[1]; i++ {
				out = append(out, opEdge{From: g.Nodes[i].Name, To: to, Type: "skipRange", Range: rng})
			}
		}
	}
	for _, n := range g.Nodes {
		expand(n.Name, n.SkipRange, n.SkipRangeFrom)
		for _, r := range n.SkipRanges {
			expand(n.Name, r.Range, r.From)
		}
	}
	return out
}

type opVia struct {
	Type string `json:"type"`
}

type opHop struct {
	Name string  `json:"name"`
	Via  []opVia `json:"via"`
}

type opNextFile struct {
	Installed struct {
		Name string `json:"name"`
	} `json:"installed"`
	OlmV0 struct {
		Head            string  `json:"head"`
		Next            *opHop  `json:"next"`
		PathToHead      []opHop `json:"pathToHead"`
		PathToHeadTotal int     `json:"pathToHeadTotal"`
		ReachesHead     bool    `json:"reachesHead"`
		Stranded        *struct {
			At       string `json:"at"`
			Bundle   string `json:"bundle"`
			Property string `json:"property"`
		} `json:"stranded"`
	} `json:"olmV0"`
	OlmV1 struct {
		Candidates []struct {
			Name      string `json:"name"`
			Installed bool   `json:"installed"`
		} `json:"candidates"`
		Pick *struct {
			Name      string `json:"name"`
			Installed bool   `json:"installed"`
		} `json:"pick"`
		Refusal *struct {
			Bundle   string `json:"bundle"`
			Property string `json:"property"`
		} `json:"refusal"`
	} `json:"olmV1"`
}

type catalogFile struct {
	Packages []catalogPackage `json:"packages"`
}

type catalogPackage struct {
	Name           string `json:"name"`
	DefaultChannel string `json:"defaultChannel"`
	Channels       []struct {
		Name string `json:"name"`
		Head string `json:"head"`
	} `json:"channels"`
}

// find returns the index of package name in cf.Packages, -1 if none.
func (cf *catalogFile) find(name string) int {
	return slices.IndexFunc(cf.Packages, func(p catalogPackage) bool { return p.Name == name })
}

// readNextFile reads the next/ file of bundle b in channel ch of pkg
// in the catalog directory base of dir with OLM v0's whole path: a file
// lists at most model.FileListMax hops, and when it is cut
// (pathToHeadTotal) the last listed hop's file continues it, as the page
// follows it.
func readNextFile(t testing.TB, dir, base, pkg, ch, b string) opNextFile {
	t.Helper()
	var nf opNextFile
	readJSONFile(t, dir, base+catviews.NextPath(pkg, ch, b), &nf)
	for total := nf.OlmV0.PathToHeadTotal; len(nf.OlmV0.PathToHead) < total; {
		var more opNextFile
		readJSONFile(t, dir, base+catviews.NextPath(pkg, ch, nf.OlmV0.PathToHead[len(nf.OlmV0.PathToHead)-1].Name), &more)
		add := more.OlmV0.PathToHead
		if len(add) == 0 {
			t.Fatalf("next/ file of %s: the path is cut, and its last hop's file lists no hop", b)
		}
		nf.OlmV0.PathToHead = append(nf.OlmV0.PathToHead, add[:min(len(add), total-len(nf.OlmV0.PathToHead))]...)
	}
	return nf
}

func readJSONFile(t testing.TB, dir, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// opState is what the operators view shows, read from its DOM and its
// cytoscape instance.
type opState struct {
	Mode        string   `json:"mode"`
	ModesHidden bool     `json:"modesHidden"`
	ReleasesOff bool     `json:"releasesOff"`
	Catalog     string   `json:"catalog"`
	Catalogs    []string `json:"catalogs"`
	State       struct {
		Catalog   string `json:"catalog"`
		Package   string `json:"package"`
		Channel   string `json:"channel"`
		Installed string `json:"installed"`
		View      string `json:"view"`
		Q         string `json:"q"`
	} `json:"state"`
	Package    string   `json:"package"`
	PackageDep string   `json:"packageDeprecated"`
	Rows       []string `json:"rows"`
	RowCurrent string   `json:"rowCurrent"`
	Count      string   `json:"count"`
	Channels   []struct {
		Name    string `json:"name"`
		Head    string `json:"head"`
		Current bool   `json:"current"`
	} `json:"channels"`
	Entries   []string `json:"entries"`
	Installed string   `json:"installed"`
	V0        struct {
		Shown       bool     `json:"shown"`
		Next        string   `json:"next"`
		Head        string   `json:"head"`
		ReachesHead string   `json:"reachesHead"`
		Path        []string `json:"path"`
		Via         []string `json:"via"`
		// Prohibited is the Prohibited bundle the page says OLM v0
		// stops before ("" for none), StrandedAt where.
		Prohibited string `json:"prohibited"`
		StrandedAt string `json:"strandedAt"`
	} `json:"v0"`
	V1 struct {
		Pick       string   `json:"pick"`
		Candidates []string `json:"candidates"`
		Installed  []string `json:"installed"`
		Picks      []string `json:"picks"`
		// Refused, RefusedProperty: the refusal the page shows; Refuses
		// the candidates badged refused.
		Refused         string   `json:"refused"`
		RefusedProperty string   `json:"refusedProperty"`
		Refuses         []string `json:"refuses"`
	} `json:"v1"`
	Deprecations []string `json:"deprecations"`
	Skipped      []string `json:"skipped"`
	Nodes        []struct {
		ID      string   `json:"id"`
		Label   string   `json:"label"`
		Classes []string `json:"classes"`
	} `json:"nodes"`
	Edges []struct {
		From    string   `json:"from"`
		To      string   `json:"to"`
		Type    string   `json:"type"`
		Range   string   `json:"range"`
		Classes []string `json:"classes"`
	} `json:"edges"`
	Status string `json:"status"`
	Search string `json:"search"`
	Ready  int    `json:"ready"`
}

// opReader reads the state (full: every node and edge drawn; else only
// those marked for the installed bundle: installed, onpath, pick,
// refused).
const opReader = `((full) => {
  const $ = (s) => document.querySelector(s);
  const all = (s) => [...document.querySelectorAll(s)];
  const v = window.upgraphViewer, o = v.operators;
  const cy = o && o.ops.cy;
  const marked = (x) => x.hasClass('installed') || x.hasClass('onpath') || x.hasClass('pick') || x.hasClass('refused');
  return {
    mode: document.body.dataset.mode || '',
    modesHidden: $('#modes').hidden,
    releasesOff: $('#mode-releases').disabled,
    catalog: $('#op-catalog').value,
    catalogs: all('#op-catalog option').map((x) => x.value),
    state: o ? { ...o.state } : {},
    package: ($('#op-package') || {}).textContent || '',
    packageDeprecated: ($('#op-package-deprecated') || {}).textContent || '',
    rows: all('#op-packages button[data-package]').map((b) => b.dataset.package),
    rowCurrent: ($('#op-packages [aria-current=true]') || { dataset: {} }).dataset.package || '',
    count: $('#op-count').textContent,
    channels: all('#op-channels li[data-channel]').map((li) => ({ name: li.dataset.channel, head: li.dataset.head, current: li.getAttribute('aria-current') === 'true' })),
    entries: all('#op-installed option').map((x) => x.value).filter(Boolean),
    installed: ($('#op-installed') || {}).value || '',
    v0: {
      shown: !!$('#op-v0'),
      next: ($('#op-v0') || { dataset: {} }).dataset.next || '',
      head: ($('#op-v0') || { dataset: {} }).dataset.head || '',
      reachesHead: ($('#op-v0') || { dataset: {} }).dataset.reachesHead || '',
      path: all('#op-v0-path li').map((li) => li.dataset.name),
      via: all('#op-v0-path li').map((li) => li.dataset.via),
      prohibited: ($('#op-v0-stranded') || { dataset: {} }).dataset.bundle || '',
      strandedAt: ($('#op-v0-stranded') || { dataset: {} }).dataset.at || '',
    },
    v1: {
      pick: ($('#op-v1') || { dataset: {} }).dataset.pick || '',
      candidates: all('#op-v1-candidates li').map((li) => li.dataset.name),
      installed: all('#op-v1-candidates li[data-installed=true]').map((li) => li.dataset.name),
      picks: all('#op-v1-candidates li[data-pick=true]').map((li) => li.dataset.name),
      refused: ($('#op-v1-refusal') || { dataset: {} }).dataset.bundle || '',
      refusedProperty: ($('#op-v1-refusal') || { dataset: {} }).dataset.property || '',
      refuses: all('#op-v1-candidates li[data-refused=true]').map((li) => li.dataset.name),
    },
    deprecations: all('#op-deprecations li').map((li) => li.dataset.kind + ' ' + li.dataset.name),
    skipped: all('#op-skipped li').map((li) => li.dataset.name),
    nodes: cy ? cy.nodes().filter((n) => full || marked(n)).map((n) => ({ id: n.id(), label: n.data('label'), classes: n.classes() })) : [],
    edges: cy ? cy.edges().filter((e) => full || marked(e)).map((e) => ({ from: e.source().id(), to: e.target().id(), type: e.data('type'), range: e.data('range') || '', classes: e.classes() })) : [],
    status: $('#status').textContent,
    search: location.search,
    ready: Number(document.body.dataset.ready || 0),
  };
})`

const readOpState = `(` + opReader + `)(true)`

func (p *page) opState(t testing.TB) opState {
	t.Helper()
	var s opState
	p.eval(t, readOpState, &s)
	return s
}

// goOps drives the page through its URL state: the query is pushed as a
// link within the page would be and applied by the page's popstate
// handler (what Back and Forward do); it returns the state once the
// page has applied it.
func (p *page) goOps(t testing.TB, q url.Values) opState {
	t.Helper()
	return p.goOpsAll(t, []url.Values{q}, true)[0]
}

// goOpsAll is goOps for each query in turn, in one round trip; unless
// full, each state has only the nodes and edges marked for the installed
// bundle.
func (p *page) goOpsAll(t testing.TB, qs []url.Values, full bool) []opState {
	t.Helper()
	var queries []string
	for _, q := range qs {
		queries = append(queries, "?"+q.Encode())
	}
	list, _ := json.Marshal(queries)
	js := fmt.Sprintf(`(async () => {
  const read = %s, out = [];
  for (const q of %s) {
    history.pushState(null, '', q);
    window.dispatchEvent(new PopStateEvent('popstate'));
    await window.upgraphViewer.idle();
    out.push(read(%v));
  }
  return out;
})()`, opReader, list, full)
	var out []opState
	p.eval(t, js, &out)
	if len(out) != len(qs) {
		t.Fatalf("%d states read for %d queries", len(out), len(qs))
	}
	return out
}

func opQuery(kv ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q
}

func hasClass(classes []string, c string) bool { return slices.Contains(classes, c) }

// edgeKey is an edge as the page and the files show it.
func edgeKey(from, to, typ, rng string) string { return from + " → " + to + " " + typ + " " + rng }

// checkGraphShown compares the drawn graph with a graph file: every
// node (the file's and the bundles outside it its edges name) with its
// classes, every edge with its type and range.
func checkGraphShown(t testing.TB, where string, s opState, g opGraphFile) {
	t.Helper()
	heads := map[string]bool{g.Head: g.Head != ""}
	for _, c := range g.Channels {
		heads[c.Head] = true
	}
	want := map[string]opNode{}
	for _, n := range g.Nodes {
		want[n.Name] = n
	}
	var wantEdges, gotEdges []string
	external := map[string]bool{}
	for _, e := range g.allEdges() {
		wantEdges = append(wantEdges, edgeKey(e.From, e.To, e.Type, e.Range))
		for _, end := range []string{e.From, e.To} {
			if _, ok := want[end]; !ok {
				external[end] = true
			}
		}
	}
	for _, e := range s.Edges {
		gotEdges = append(gotEdges, edgeKey(e.From, e.To, e.Type, e.Range))
		if !hasClass(e.Classes, e.Type) {
			t.Errorf("%s: edge %s drawn with classes %v, not as %s", where, edgeKey(e.From, e.To, e.Type, e.Range), e.Classes, e.Type)
		}
	}
	slices.Sort(wantEdges)
	slices.Sort(gotEdges)
	if !slices.Equal(gotEdges, wantEdges) {
		t.Errorf("%s: edges drawn\n%s\nthe file has\n%s", where, strings.Join(gotEdges, "\n"), strings.Join(wantEdges, "\n"))
	}
	if len(s.Nodes) != len(want)+len(external) {
		t.Errorf("%s: %d nodes drawn, the file has %d bundles and its edges name %d others", where, len(s.Nodes), len(want), len(external))
	}
	for _, n := range s.Nodes {
		f, ok := want[n.ID]
		switch {
		case external[n.ID]:
			if !hasClass(n.Classes, "external") {
				t.Errorf("%s: %s, outside the graph, drawn as %v", where, n.ID, n.Classes)
			}
			continue
		case !ok:
			t.Errorf("%s: node %s is not in the file", where, n.ID)
			continue
		}
		if hasClass(n.Classes, "head") != heads[n.ID] || hasClass(n.Classes, "skipped") != f.SkippedByV0 ||
			hasClass(n.Classes, "deprecated") != (f.Deprecated != "") || hasClass(n.Classes, "external") {
			t.Errorf("%s: %s drawn with classes %v; head %v, skippedByV0 %v, deprecated %q", where, n.ID, n.Classes, heads[n.ID], f.SkippedByV0, f.Deprecated)
		}
		if !strings.HasPrefix(n.Label, f.Version) {
			t.Errorf("%s: %s labelled %q, version %s", where, n.ID, n.Label, f.Version)
		}
	}
	var skipped []string
	for _, n := range g.Nodes {
		if n.SkippedByV0 {
			skipped = append(skipped, n.Name)
		}
	}
	if !slices.Equal(s.Skipped, skipped) && !(len(s.Skipped) == 0 && len(skipped) == 0) {
		t.Errorf("%s: listed as skipped by OLM v0 %v, the file has %v", where, s.Skipped, skipped)
	}
}

// checkNextShown compares what the page shows for an installed bundle
// with its next/ file, and the marks on the graph.
func checkNextShown(t testing.TB, where string, s opState, n opNextFile) {
	t.Helper()
	wantNext := ""
	if n.OlmV0.Next != nil {
		wantNext = n.OlmV0.Next.Name
	}
	var path, via []string
	for _, h := range n.OlmV0.PathToHead {
		path = append(path, h.Name)
		var types []string
		for _, v := range h.Via {
			types = append(types, v.Type)
		}
		via = append(via, strings.Join(types, ","))
	}
	if !s.V0.Shown || s.V0.Next != wantNext || s.V0.Head != n.OlmV0.Head || s.V0.ReachesHead != fmt.Sprint(n.OlmV0.ReachesHead) {
		t.Errorf("%s: OLM v0 shown %v: next %q, head %q, reaches head %s; the file: %q, %q, %v", where, s.V0.Shown, s.V0.Next, s.V0.Head, s.V0.ReachesHead, wantNext, n.OlmV0.Head, n.OlmV0.ReachesHead)
	}
	if wantNext != "" && (!slices.Equal(s.V0.Path, path) || !slices.Equal(s.V0.Via, via)) {
		t.Errorf("%s: OLM v0 path %v via %v, the file has %v via %v", where, s.V0.Path, s.V0.Via, path, via)
	}
	var cands, installed []string
	for _, c := range n.OlmV1.Candidates {
		cands = append(cands, c.Name)
		if c.Installed {
			installed = append(installed, c.Name)
		}
	}
	pick := ""
	if n.OlmV1.Pick != nil {
		pick = n.OlmV1.Pick.Name
	}
	if !slices.Equal(s.V1.Candidates, cands) || !slices.Equal(s.V1.Installed, installed) || s.V1.Pick != pick ||
		(pick != "" && !slices.Equal(s.V1.Picks, []string{pick})) {
		t.Errorf("%s: OLM v1 candidates %v (installed %v), pick %q %v; the file: %v (installed %v), pick %q", where, s.V1.Candidates, s.V1.Installed, s.V1.Pick, s.V1.Picks, cands, installed, pick)
	}
	// On the graph: the installed bundle, the path's bundles and an edge
	// of each hop of the types its via lists.
	classes := map[string][]string{}
	for _, nd := range s.Nodes {
		classes[nd.ID] = nd.Classes
	}
	if !hasClass(classes[n.Installed.Name], "installed") {
		t.Errorf("%s: the installed bundle is drawn as %v", where, classes[n.Installed.Name])
	}
	from := n.Installed.Name
	for _, h := range n.OlmV0.PathToHead {
		if !hasClass(classes[h.Name], "onpath") {
			t.Errorf("%s: %s, on OLM v0's path, drawn as %v", where, h.Name, classes[h.Name])
		}
		marked := false
		for _, e := range s.Edges {
			if e.From == from && e.To == h.Name && hasClass(e.Classes, "onpath") && slices.ContainsFunc(h.Via, func(v opVia) bool { return v.Type == e.Type }) {
				marked = true
			}
		}
		if !marked {
			t.Errorf("%s: the hop %s → %s is not marked on the graph", where, from, h.Name)
		}
		from = h.Name
	}
	if pick != "" && !n.OlmV1.Pick.Installed && !hasClass(classes[pick], "pick") {
		t.Errorf("%s: OLM v1's pick %s drawn as %v", where, pick, classes[pick])
	}
	// What the runtimes refuse, as the file says: OLM v1's refused
	// resolution (the bundle and its property, badged among the
	// candidates, drawn refused) and OLM v0's Prohibited next bundle.
	wantRef, wantProp := "", ""
	if r := n.OlmV1.Refusal; r != nil {
		wantRef, wantProp = r.Bundle, r.Property
	}
	if s.V1.Refused != wantRef || s.V1.RefusedProperty != wantProp || (wantRef != "" && !slices.Equal(s.V1.Refuses, []string{wantRef})) || (wantRef == "" && len(s.V1.Refuses) != 0) {
		t.Errorf("%s: OLM v1 refusal shown %q (%q), badged %v; the file: %q (%q)", where, s.V1.Refused, s.V1.RefusedProperty, s.V1.Refuses, wantRef, wantProp)
	}
	if wantRef != "" && !hasClass(classes[wantRef], "refused") {
		t.Errorf("%s: OLM v1's refused %s drawn as %v", where, wantRef, classes[wantRef])
	}
	wantPro, wantAt := "", ""
	if st := n.OlmV0.Stranded; st != nil {
		wantPro, wantAt = st.Bundle, st.At
	}
	if s.V0.Prohibited != wantPro || s.V0.StrandedAt != wantAt {
		t.Errorf("%s: OLM v0 stranded shown before %q at %q; the file: before %q at %q", where, s.V0.Prohibited, s.V0.StrandedAt, wantPro, wantAt)
	}
	if wantPro != "" && !hasClass(classes[wantPro], "refused") {
		t.Errorf("%s: OLM v0's Prohibited %s drawn as %v", where, wantPro, classes[wantPro])
	}
}

// TestOperatorsAllPackages: for every package of both catalogs, the page
// (driven through its URL state) lists the package's channels with their
// heads as catalog.json and graph/<P>.json give them, opens its default
// channel, draws every channel's and the package's graph with exactly the
// files' bundles, edges (type and range), heads, deprecations and
// bundles OLM v0 skips, and for every entry of every channel shows the
// OLM v0 next hop, path to the head and OLM v1 candidates and pick of its
// next/ file, marked on the graph. A few tabs take packages from a queue.
func TestOperatorsAllPackages(t *testing.T) {
	dir := operatorsTree(t)
	origin := serveTree(t, dir)
	browser := newBrowser(t)
	type job struct{ catalog, pkg string }
	var jobs []job
	for _, c := range []string{"community", "fixture"} {
		var cf catalogFile
		readJSONFile(t, dir, catviews.Dir(c)+catviews.SummaryFile, &cf)
		for _, p := range cf.Packages {
			jobs = append(jobs, job{c, p.Name})
		}
	}
	// The page's time is mostly waiting (for its files, for frames):
	// tabs taking packages from a queue overlap it (as many as run in
	// parallel: -parallel defaults to GOMAXPROCS).
	tabs := min(4, max(2, runtime.GOMAXPROCS(0)))
	queue := make(chan job, len(jobs))
	for _, j := range jobs {
		queue <- j
	}
	close(queue)
	start := time.Now()
	var mu sync.Mutex
	steps, entries, packages, refusals, prohibited := 0, 0, 0, 0, 0
	t.Run("tabs", func(t *testing.T) {
		for k := range tabs {
			t.Run(fmt.Sprint(k), func(t *testing.T) {
				t.Parallel()
				// A tab goes through about 1,100/tabs page states: at
				// 0.74 s a state on two loaded cores (measured at load
				// 25), 3 minutes are not enough.
				p := newPageWithin(t, browser, origin, 15*time.Minute)
				p.open(t, opQuery("catalog", "community"))
				n := 0
				for j := range queue {
					s, e, r, pr := checkPackage(t, p, dir, j.catalog, j.pkg)
					mu.Lock()
					steps += s
					entries += e
					refusals += r
					prohibited += pr
					packages++
					mu.Unlock()
					n++
				}
				t.Logf("tab %d: %d packages", k, n)
			})
		}
	})
	took := time.Since(start)
	t.Logf("%d packages, %d channel entries, %d page states in %s on %d tabs (%.0f ms a state)", packages, entries, steps, took.Round(time.Millisecond), tabs,
		float64(took.Milliseconds())*float64(tabs)/float64(max(steps, 1)))
	// The refusals were among them: the shared catalog's
	// rabbitmq-messaging-topology-operator (OLM v1 refuses 1.15.0 and
	// later, which declare olm.gvk.required) and the fixture's
	// gated-operator (both runtimes).
	t.Logf("%d installs shown refused by OLM v1, %d shown stranded by a Prohibited bundle", refusals, prohibited)
	if refusals < 10 || prohibited < 2 {
		t.Errorf("checked %d OLM v1 refusals and %d OLM v0 Prohibited strands, want the shared catalog's and the fixture's", refusals, prohibited)
	}
	if packages != len(jobs) || entries < 745 {
		t.Errorf("checked %d packages and %d entries, want %d packages and every entry", packages, entries, len(jobs))
	}
}

// TestOperatorsRefusals: the packages where a runtime refuses updates,
// checked as TestOperatorsAllPackages checks every package: the shared
// catalog's rabbitmq-messaging-topology-operator (1.15.0 and later
// declare olm.gvk.required: OLM v1 refuses them when it resolves to them)
// and the fixture's gated-operator (1.2.0 Prohibited for OLM v0, 2.0.0
// refused by OLM v1). The page shows each refusal (the bundle, its
// property, the controller's message) instead of a pick, and each
// Prohibited strand, as the next/ files give them.
func TestOperatorsRefusals(t *testing.T) {
	dir := operatorsTree(t)
	p := newPage(t, newBrowser(t), serveTree(t, dir))
	p.open(t, opQuery("catalog", "community"))
	for _, tc := range []struct {
		catalog, pkg        string
		refused, prohibited int
	}{
		{"community", "rabbitmq-messaging-topology-operator", 8, 0},
		{"fixture", "gated-operator", 2, 2},
	} {
		_, entries, refused, prohibited := checkPackage(t, p, dir, tc.catalog, tc.pkg)
		t.Logf("%s/%s: %d entries, %d shown refused by OLM v1, %d stranded by a Prohibited bundle", tc.catalog, tc.pkg, entries, refused, prohibited)
		if refused != tc.refused || prohibited != tc.prohibited {
			t.Errorf("%s/%s: %d refused, %d Prohibited strands; want %d, %d", tc.catalog, tc.pkg, refused, prohibited, tc.refused, tc.prohibited)
		}
	}
	// The refusal as the page words it, and the graph's mark.
	s := p.goOps(t, opQuery("catalog", "fixture", "package", "gated-operator", "channel", "stable", "installed", "gated-operator.v1.2.0"))
	var text string
	p.eval(t, `document.getElementById('op-v1-refusal').textContent + ' | ' + document.getElementById('op-v1').textContent`, &text)
	if s.V1.Refused != "gated-operator.v2.0.0" || s.V1.RefusedProperty != "olm.gvk.required" || s.V1.Pick != "" ||
		!strings.Contains(text, "declares olm.gvk.required") || !strings.Contains(text, "which is currently not supported") {
		t.Errorf("gated-operator 1.2.0: refusal %q (%q), pick %q: %s", s.V1.Refused, s.V1.RefusedProperty, s.V1.Pick, text)
	}
	s = p.goOps(t, opQuery("catalog", "fixture", "package", "gated-operator", "channel", "stable", "installed", "gated-operator.v1.0.0"))
	p.eval(t, `document.getElementById('op-v0-stranded').textContent`, &text)
	if s.V0.Prohibited != "gated-operator.v1.2.0" || s.V0.StrandedAt != "gated-operator.v1.1.0" || !strings.Contains(text, "legacy olm.deprecated") {
		t.Errorf("gated-operator 1.0.0: stranded before %q at %q: %s", s.V0.Prohibited, s.V0.StrandedAt, text)
	}
	p.screenshot(t, "viewer-operators-refusal.png")
}

// TestOperatorsCatalogSet: when several catalogs of the tree have the
// package, OLM v1 resolves across them (model.ResolveV1Set: the highest
// priority wins, a tie is an error), and the page says which catalog won
// and shows one line per catalog; a refusal names the winner's bundle.
// Two trees of the fixture twice: priorities 0 and 10, then a tie at 5.
func TestOperatorsCatalogSet(t *testing.T) {
	browser := newBrowser(t)
	for _, tc := range []struct {
		name       string
		priorities [2]int32
		winner     string
	}{
		{"priority", [2]int32{0, 10}, "site-b"},
		{"tie", [2]int32{5, 5}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := loadCatalog(t, "site-a", fixtureCatalog), loadCatalog(t, "site-b", fixtureCatalog)
			a.Priority, b.Priority = tc.priorities[0], tc.priorities[1]
			a.Peers, b.Peers = []*catviews.Catalog{b}, []*catviews.Catalog{a}
			dir := filepath.Join(t.TempDir(), "tree")
			renderCatalogTree(t, dir, false, a, b)
			p := newPage(t, browser, serveTree(t, dir))
			p.open(t, opQuery("catalog", "site-a"))
			// Every entry as its next/ file says (refusals included).
			checkPackage(t, p, dir, "site-a", "gated-operator")
			p.goOps(t, opQuery("catalog", "site-a", "package", "gated-operator", "channel", "stable", "installed", "gated-operator.v1.2.0"))
			var got struct {
				Catalog string   `json:"catalog"`
				Lines   []string `json:"lines"`
				Won     []string `json:"won"`
				Refused string   `json:"refused"`
				Error   string   `json:"error"`
			}
			p.eval(t, `({
  catalog: document.getElementById('op-v1').dataset.catalog,
  lines: [...document.querySelectorAll('#op-v1-catalogs li')].map((li) => li.dataset.catalog),
  won: [...document.querySelectorAll('#op-v1-catalogs li[data-won=true]')].map((li) => li.dataset.catalog),
  refused: document.getElementById('op-v1').dataset.refused,
  error: [...document.querySelectorAll('#op-v1 .nopath')].map((x) => x.textContent).join(' | '),
})`, &got)
			var nf struct {
				Catalog string `json:"olmV1Catalog"`
			}
			readJSONFile(t, dir, catviews.Dir("site-a")+catviews.NextPath("gated-operator", "stable", "gated-operator.v1.2.0"), &nf)
			if got.Catalog != tc.winner || nf.Catalog != tc.winner || !slices.Equal(got.Lines, []string{"site-a", "site-b"}) {
				t.Errorf("catalog shown %q (the file: %q), lines %v; want %q and both catalogs", got.Catalog, nf.Catalog, got.Lines, tc.winner)
			}
			if tc.winner != "" && (!slices.Equal(got.Won, []string{tc.winner}) || got.Refused != "gated-operator.v2.0.0") {
				t.Errorf("won %v, refused %q", got.Won, got.Refused)
			}
			if tc.winner == "" && (len(got.Won) != 0 || got.Refused != "" || !strings.Contains(got.Error, "in multiple catalogs with the same priority [site-a site-b]")) {
				t.Errorf("a tie: won %v, refused %q, error %q", got.Won, got.Refused, got.Error)
			}
			p.screenshot(t, "viewer-operators-catalog-set-"+tc.name+".png")
		})
	}
}

// checkPackage checks one package; it returns the page states it went
// through, the entries checked, and among them the installs refused by
// OLM v1 and stranded by a Prohibited bundle.
func checkPackage(t *testing.T, p *page, dir, catalog, pkg string) (states, entries, refused, prohibited int) {
	t.Helper()
	base := catviews.Dir(catalog)
	var cf catalogFile
	readJSONFile(t, dir, base+catviews.SummaryFile, &cf)
	summary := cf.Packages[cf.find(pkg)]
	var pg opGraphFile
	readJSONFile(t, dir, base+catviews.PackageGraphPath(pkg), &pg)

	// The package: its default channel, every channel with its head.
	s := p.goOps(t, opQuery("catalog", catalog, "package", pkg))
	states++
	where := catalog + "/" + pkg
	if s.Mode != "operators" || s.State.Catalog != catalog || s.State.Package != pkg || s.Package != pkg || s.State.Channel != summary.DefaultChannel || s.State.Installed != "" {
		t.Fatalf("%s: the page shows %s %+v (mode %s)", where, s.Package, s.State, s.Mode)
	}
	if s.RowCurrent != pkg {
		t.Errorf("%s: the package list marks %q", where, s.RowCurrent)
	}
	if len(s.Channels) != len(summary.Channels) || len(pg.Channels) != len(summary.Channels) {
		t.Errorf("%s: %d channels listed, catalog.json has %d", where, len(s.Channels), len(summary.Channels))
	}
	for k, c := range s.Channels {
		if k >= len(summary.Channels) {
			break
		}
		if c.Name != summary.Channels[k].Name || c.Head != summary.Channels[k].Head || c.Head != pg.Channels[k].Head || c.Current != (c.Name == summary.DefaultChannel) {
			t.Errorf("%s: channel %d shown as %+v; catalog.json: %+v", where, k, c, summary.Channels[k])
		}
	}
	var deps []string
	if pg.Deprecated != "" {
		deps = append(deps, "package "+pkg)
	}
	for _, c := range pg.Channels {
		if c.Deprecated != "" {
			deps = append(deps, "channel "+c.Name)
		}
	}
	for _, n := range pg.Nodes {
		if n.Deprecated != "" {
			deps = append(deps, "bundle "+n.Name)
		}
	}
	if !slices.Equal(s.Deprecations, deps) && len(s.Deprecations)+len(deps) > 0 {
		t.Errorf("%s: deprecations shown %v, the files have %v", where, s.Deprecations, deps)
	}
	if (s.PackageDep != "") != (pg.Deprecated != "") {
		t.Errorf("%s: package deprecation shown %q, the file has %q", where, s.PackageDep, pg.Deprecated)
	}

	// The package's graph, all channels.
	s = p.goOps(t, opQuery("catalog", catalog, "package", pkg, "view", "package"))
	states++
	checkGraphShown(t, where+" (all channels)", s, pg)

	for _, c := range summary.Channels {
		var g opGraphFile
		readJSONFile(t, dir, base+catviews.ChannelGraphPath(pkg, c.Name), &g)
		s = p.goOps(t, opQuery("catalog", catalog, "package", pkg, "channel", c.Name))
		states++
		cw := where + "/" + c.Name
		if s.State.Channel != c.Name || s.State.View != "channel" {
			t.Fatalf("%s: the page shows channel %q (%s)", cw, s.State.Channel, s.State.View)
		}
		checkGraphShown(t, cw, s, g)
		var names []string
		for _, n := range g.Nodes {
			names = append(names, n.Name)
		}
		if !slices.Equal(s.Entries, names) {
			t.Errorf("%s: installed versions offered %v, the channel's entries are %v", cw, s.Entries, names)
		}
		// Every entry installed, one page state each, read in one round
		// trip.
		var qs []url.Values
		for _, b := range names {
			qs = append(qs, opQuery("catalog", catalog, "package", pkg, "channel", c.Name, "installed", b))
		}
		for k, s := range p.goOpsAll(t, qs, false) {
			b := names[k]
			nf := readNextFile(t, dir, base, pkg, c.Name, b)
			states++
			if s.State.Installed != b || s.Installed != b || s.State.Channel != c.Name {
				t.Fatalf("%s: installed %s, the page shows %q (%q) in %s", cw, b, s.State.Installed, s.Installed, s.State.Channel)
			}
			checkNextShown(t, cw+" installed "+b, s, nf)
			entries++
			if nf.OlmV1.Refusal != nil {
				refused++
			}
			if nf.OlmV0.Stranded != nil {
				prohibited++
			}
		}
	}
	return states, entries, refused, prohibited
}

// TestOperatorsDeepLink: a link names catalog, package, channel and
// installed bundle, and the page opens on them (the files requested with
// the list of catalogs); every change is in the URL; reload, Back and
// Forward restore the states; the filter, the tabs and links naming what
// the tree lacks.
func TestOperatorsDeepLink(t *testing.T) {
	dir := operatorsTree(t)
	origin := serveTree(t, dir)
	p := newPage(t, newBrowser(t), origin)
	link := opQuery("catalog", "fixture", "package", "demo-operator", "channel", "Fast_Track", "installed", "demo-operator.v1.3.0")
	p.open(t, link)
	s := p.opState(t)
	if s.Mode != "operators" || s.ModesHidden || s.State.Catalog != "fixture" || s.State.Package != "demo-operator" || s.State.Channel != "Fast_Track" || s.State.Installed != "demo-operator.v1.3.0" {
		t.Fatalf("deep link restored %+v (mode %s)", s.State, s.Mode)
	}
	if !slices.Equal(s.Catalogs, []string{"community", "fixture"}) || s.Catalog != "fixture" {
		t.Errorf("catalogs offered %v, selected %s", s.Catalogs, s.Catalog)
	}
	// 2.0.0's skipRange holds 1.3.0: OLM v0 goes to the head at once.
	if s.V0.Next != "demo-operator.v2.0.0" || !slices.Equal(s.V0.Path, []string{"demo-operator.v2.0.0"}) || !slices.Equal(s.V0.Via, []string{"skipRange"}) ||
		s.V1.Pick != "demo-operator.v2.0.0" || !slices.Equal(s.V1.Candidates, []string{"demo-operator.v2.0.0", "demo-operator.v1.4.0", "demo-operator.v1.3.0"}) {
		t.Errorf("Fast_Track from 1.3.0: OLM v0 %+v, OLM v1 %+v", s.V0, s.V1)
	}
	for _, f := range []string{"operators/fixture/graph/demo-operator.json", "operators/fixture/graph/demo-operator/!fast~5f!track.json",
		"operators/fixture/next/demo-operator/!fast~5f!track/demo-operator.v1.3.0.json"} {
		if !p.requested(f) {
			t.Errorf("the page did not request %s", f)
		}
	}
	var early []string
	p.eval(t, `performance.getEntriesByType('resource').filter((e) => e.name.includes('/operators/') && e.startTime < window.upgraphViewer.timings.summary).map((e) => e.name)`, &early)
	if len(early) != 3 {
		t.Errorf("requested before the list of catalogs was read: %v, want the package's, the channel's and the installed bundle's files", early)
	}
	p.screenshot(t, "viewer-operators-deeplink.png")

	// Clicks are recorded: another channel keeps the installed bundle
	// when it lists it; the package view; a node of the graph.
	p.click(t, `#op-channels button[data-select-channel="stable"]`)
	s = p.opState(t)
	q, _ := url.ParseQuery(strings.TrimPrefix(s.Search, "?"))
	if q.Get("channel") != "stable" || q.Get("installed") != "demo-operator.v1.3.0" || q.Get("package") != "demo-operator" || q.Get("catalog") != "fixture" {
		t.Errorf("after choosing stable the URL is %s", s.Search)
	}
	if s.V0.Next != "demo-operator.v1.4.0" || !slices.Equal(s.Skipped, []string{"demo-operator.v1.2.0"}) || !slices.Equal(s.Deprecations, []string{"channel candidate", "bundle demo-operator.v1.1.0"}) {
		t.Errorf("stable from 1.3.0: next %s, skipped %v, deprecations %v", s.V0.Next, s.Skipped, s.Deprecations)
	}
	p.click(t, "#op-view-package")
	// 8 bundles, and the one the chain tail replaces, outside the catalog.
	if s = p.opState(t); s.State.View != "package" || !strings.Contains(s.Search, "view=package") || len(s.Nodes) != 9 {
		t.Errorf("package view: %s, %d nodes", s.Search, len(s.Nodes))
	}
	p.screenshot(t, "viewer-operators-package.png")
	p.click(t, "#op-view-channel")
	before := p.renders(t)
	p.eval(t, `(() => { const n = window.upgraphViewer.operators.ops.cy.getElementById('demo-operator.v1.0.0'); n.emit('tap'); return true; })()`, nil)
	p.waitRender(t, before)
	if s = p.opState(t); s.State.Installed != "demo-operator.v1.0.0" || !strings.Contains(s.Search, "installed=demo-operator.v1.0.0") {
		t.Errorf("tapping 1.0.0 installed %q (URL %s)", s.State.Installed, s.Search)
	}
	p.screenshot(t, "viewer-operators-channel.png")

	// Reload keeps the state; Back and Forward walk through it.
	p.do(t, chromedp.Reload())
	p.waitRender(t, 0)
	if s = p.opState(t); s.State.Installed != "demo-operator.v1.0.0" || s.State.Channel != "stable" || s.V0.Next != "demo-operator.v1.4.0" {
		t.Errorf("after a reload: %+v, next %s", s.State, s.V0.Next)
	}
	back := func() opState {
		before := p.renders(t)
		p.do(t, chromedp.NavigateBack())
		p.waitRender(t, before)
		return p.opState(t)
	}
	if s = back(); s.State.View != "channel" || s.State.Installed != "demo-operator.v1.3.0" {
		t.Errorf("Back: %+v", s.State)
	}
	if s = back(); s.State.View != "package" {
		t.Errorf("Back again: %+v", s.State)
	}
	back()
	if s = back(); s.State.Channel != "Fast_Track" || s.State.Installed != "demo-operator.v1.3.0" {
		t.Errorf("Back to the link: %+v", s.State)
	}
	before = p.renders(t)
	p.do(t, chromedp.NavigateForward())
	p.waitRender(t, before)
	if s = p.opState(t); s.State.Channel != "stable" || s.State.View != "channel" {
		t.Errorf("Forward: %+v", s.State)
	}

	// A hashed file name (the bundle's name is over 200 bytes once
	// encoded), and the deprecations of a package.
	long := "demo-operator.v0.5.0-" + strings.Repeat("legacy", 32) + "+Build.Meta"
	s = p.goOps(t, opQuery("catalog", "fixture", "package", "demo-operator", "channel", "legacy", "installed", long))
	if s.State.Installed != long || s.V0.Head != long || s.V1.Pick != long || !p.requested(catviews.Dir("fixture")+catviews.NextPath("demo-operator", "legacy", long)) {
		t.Errorf("legacy: %+v %+v", s.State, s.V0)
	}
	s = p.goOps(t, opQuery("catalog", "fixture", "package", "retired-operator"))
	if !strings.Contains(s.PackageDep, "end of life") || !slices.Equal(s.Deprecations, []string{"package retired-operator"}) {
		t.Errorf("retired-operator: %q, %v", s.PackageDep, s.Deprecations)
	}

	// The filter narrows the list (in the URL); Enter picks its first
	// package.
	p.open(t, opQuery("catalog", "community"))
	if s = p.opState(t); s.Count != "33 packages" || s.State.Package != "apicurio-registry-3" || len(s.Rows) == 0 || s.Rows[0] != "apicurio-registry-3" {
		t.Errorf("community: %q, package %s, rows %v", s.Count, s.State.Package, s.Rows)
	}
	p.do(t, chromedp.SendKeys(chromedp.CSS("#op-search"), "QUAY"))
	p.poll(t, `document.getElementById('op-count').textContent === '1 of 33 packages'`)
	before = p.renders(t)
	p.do(t, chromedp.SendKeys(chromedp.CSS("#op-search"), "\r"))
	p.waitRender(t, before)
	if s = p.opState(t); s.State.Package != "project-quay" || !slices.Equal(s.Rows, []string{"project-quay"}) || !strings.Contains(s.Search, "q=QUAY") || s.State.Channel != "stable-3.17" {
		t.Errorf("filtered: package %s, rows %v, URL %s", s.State.Package, s.Rows, s.Search)
	}

	// The tabs: Releases shows the release view (its URL), Back returns.
	p.click(t, "#mode-releases")
	rs := p.state(t)
	if ms := p.opState(t); ms.Mode != "releases" || strings.Contains(rs.Location.Search, "catalog=") || rs.Channel == "" || rs.Current == "" {
		t.Errorf("Releases tab: mode %s, %s %s, URL %s", ms.Mode, rs.Channel, rs.Current, rs.Location.Search)
	}
	p.screenshot(t, "viewer-operators-releases-tab.png")
	if s = back(); s.Mode != "operators" || s.State.Package != "project-quay" {
		t.Errorf("Back from Releases: %s %+v", s.Mode, s.State)
	}
	p.click(t, "#mode-releases")
	p.click(t, "#mode-operators")
	if s = p.opState(t); s.Mode != "operators" || s.State.Package != "project-quay" {
		t.Errorf("Operators tab: %s %+v", s.Mode, s.State)
	}

	// Names the tree lacks fall back to what it has (after the 404s of
	// the files the link names).
	p.allow("/operators/nope/graph/nope.json", "/operators/nope/graph/nope/nope.json")
	p.open(t, opQuery("catalog", "nope", "package", "nope", "channel", "nope"))
	if s = p.opState(t); s.State.Catalog != "community" || s.State.Package != "apicurio-registry-3" || s.State.Channel == "nope" {
		t.Errorf("a link to nothing: %+v", s.State)
	}
}

// TestOperatorsVirtualList: the package list puts in the DOM only the
// rows in view, however many packages the catalog has, and scrolling
// shows the others.
func TestOperatorsVirtualList(t *testing.T) {
	dir := operatorsTree(t)
	origin := serveTree(t, dir)
	p := newPage(t, newBrowser(t), origin)
	p.open(t, opQuery("catalog", "community", "package", "stackgres-community"))
	// A catalog of 2,000 packages, as the page would get it.
	var got struct {
		Rows    int    `json:"rows"`
		First   string `json:"first"`
		Count   string `json:"count"`
		AtEnd   string `json:"atEnd"`
		Visible bool   `json:"visible"`
	}
	p.eval(t, `(async () => {
  const v = window.upgraphViewer, o = v.operators;
  const cat = v.summary.catalogs.find((c) => c.name === 'community');
  const real = cat.packages;
  cat.packages = Array.from({ length: 2000 }, (_, i) => 'pkg-' + String(i).padStart(4, '0')).concat(real);
  o.ops.catalog = cat;
  document.getElementById('op-search').dispatchEvent(new Event('input'));
  const list = document.getElementById('op-packages');
  const rows = list.querySelectorAll('button[data-package]').length;
  const first = list.querySelector('button[data-package]').dataset.package;
  const count = document.getElementById('op-count').textContent;
  list.scrollTop = list.scrollHeight;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const buttons = [...list.querySelectorAll('button[data-package]')];
  const last = buttons[buttons.length - 1];
  const lr = last.getBoundingClientRect(), box = list.getBoundingClientRect();
  cat.packages = real;
  return { rows, first, count, atEnd: last.dataset.package, visible: lr.bottom <= box.bottom + 1 && lr.top >= box.top };
})()`, &got)
	if got.Rows > 80 || got.First != "pkg-0000" || got.Count != "2033 packages" || got.AtEnd != "visionone-containersecurity" || !got.Visible {
		t.Errorf("2033 packages: %d rows in the DOM, first %s, count %q, last after scrolling %s (visible %v)", got.Rows, got.First, got.Count, got.AtEnd, got.Visible)
	}
}

// TestOperatorsCatalogsOnly: a tree of catalogs alone opens on the
// operators view, its Releases tab disabled, and reads its catalogs from
// index.json when it lacks viewer/graphs.json; a tree without catalogs
// (the demo tree) has no tabs and requests nothing of the operators view.
func TestOperatorsCatalogsOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tree")
	renderCatalogTree(t, dir, false, loadCatalog(t, "fixture", fixtureCatalog))
	origin := serveTree(t, dir)
	browser := newBrowser(t)
	p := newPage(t, browser, origin)
	p.open(t, nil)
	s := p.opState(t)
	if s.Mode != "operators" || !s.ReleasesOff || s.ModesHidden || s.State.Catalog != "fixture" || s.State.Package != "demo-operator" || s.State.Channel != "stable" {
		t.Errorf("catalogs alone: mode %s, releases disabled %v, %+v", s.Mode, s.ReleasesOff, s.State)
	}
	if !strings.Contains(s.Status, "demo-operator · stable: 5 bundles, 10 edges") {
		t.Errorf("status %q", s.Status)
	}
	p.screenshot(t, "viewer-operators-catalogs-only.png")

	// Without viewer/graphs.json (a tree of an older upgraph) the
	// catalogs are read from index.json.
	old := withoutViewerSummary(t, dir)
	o := newPage(t, browser, serveTree(t, old))
	o.allow(viewer.SummaryFile) // its 404 is logged
	o.open(t, opQuery("catalog", "fixture", "package", "retired-operator", "channel", "alpha", "installed", "retired-operator.v0.1.0"))
	if s := o.opState(t); s.State.Package != "retired-operator" || s.V0.Next != "retired-operator.v0.2.0" || !slices.Equal(s.Catalogs, []string{"fixture"}) {
		t.Errorf("without %s: %+v, next %q, catalogs %v", viewer.SummaryFile, s.State, s.V0.Next, s.Catalogs)
	}
	var from string
	o.eval(t, `window.upgraphViewer.summaryFile`, &from)
	if from != manifest.FileName {
		t.Errorf("without %s the page read %q", viewer.SummaryFile, from)
	}

	demo := serveTree(t, demoTree(t))
	d := newPage(t, browser, demo)
	d.open(t, nil)
	var got struct {
		Hidden bool   `json:"hidden"`
		Mode   string `json:"mode"`
		Ops    bool   `json:"ops"`
	}
	d.eval(t, `({ hidden: document.getElementById('modes').hidden, mode: document.body.dataset.mode || '', ops: !!window.upgraphViewer.operators })`, &got)
	if !got.Hidden || got.Mode != "" || got.Ops {
		t.Errorf("a tree without catalogs: tabs hidden %v, mode %q, operators view %v", got.Hidden, got.Mode, got.Ops)
	}
	d.mu.Lock()
	for _, u := range d.requests {
		if strings.Contains(u, "/operators/") {
			t.Errorf("a tree without catalogs: requested %s", u)
		}
	}
	d.mu.Unlock()
}

// withoutViewerSummary copies the tree at dir without viewer/graphs.json,
// index.json without it, as an older upgraph wrote trees.
func withoutViewerSummary(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "tree")
	if err := os.CopyFS(out, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(out, filepath.FromSlash(viewer.SummaryFile))); err != nil {
		t.Fatal(err)
	}
	var index map[string]json.RawMessage
	var files map[string]json.RawMessage
	data, err := os.ReadFile(filepath.Join(out, manifest.FileName))
	if err == nil {
		err = json.Unmarshal(data, &index)
	}
	if err == nil {
		err = json.Unmarshal(index["files"], &files)
	}
	if err == nil {
		delete(files, viewer.SummaryFile)
		index["files"], err = json.Marshal(files)
	}
	if err == nil {
		data, err = json.Marshal(index)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(out, manifest.FileName), data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}
