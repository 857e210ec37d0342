package model

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// buildValidDeclarativeConfig is operator-registry alpha/declcfg/
// helpers_test.go's, with its deprecations (IncludeDeprecations).
func buildValidDeclarativeConfig() *declcfg.DeclarativeConfig {
	a := func(v string) string { return testBundleName("anakin", v) }
	return &declcfg.DeclarativeConfig{
		Packages: []declcfg.Package{newTestPackage("anakin", "dark"), newTestPackage("boba-fett", "mando")},
		Channels: []declcfg.Channel{
			newTestChannel("anakin", "dark", ce(a("0.0.1"), ""), ce(a("0.1.0"), a("0.0.1")), ce(a("0.1.1"), a("0.0.1"), a("0.1.0"))),
			newTestChannel("anakin", "light", ce(a("0.0.1"), ""), ce(a("0.1.0"), a("0.0.1"))),
			newTestChannel("boba-fett", "mando", ce("boba-fett.v1.0.0", ""), ce("boba-fett.v2.0.0", "boba-fett.v1.0.0")),
		},
		Bundles: []declcfg.Bundle{
			newTestBundle("anakin", "0.0.1"), newTestBundle("anakin", "0.1.0"), newTestBundle("anakin", "0.1.1"),
			newTestBundle("boba-fett", "1.0.0"), newTestBundle("boba-fett", "2.0.0"),
		},
		Deprecations: []declcfg.Deprecation{{Schema: declcfg.SchemaDeprecations, Package: "anakin", Entries: []declcfg.DeprecationEntry{
			{Reference: declcfg.PackageScopedReference{Schema: "olm.bundle", Name: a("0.0.1")}, Message: "This bundle version is deprecated"},
			{Reference: declcfg.PackageScopedReference{Schema: "olm.channel", Name: "light"}, Message: "This channel is deprecated"},
			{Reference: declcfg.PackageScopedReference{Schema: "olm.package"}, Message: "This package is deprecated... there is another"},
		}}},
	}
}

func edge(from, to string, t EdgeType, r string) GraphEdge {
	return GraphEdge{From: from, To: to, Type: t, Range: r}
}

// TestChannelGraphRenderGraph ports operator-registry alpha/declcfg/
// write_test.go TestWriteMermaidChannels "SuccessNoFilters": the edges of
// each channel in render-graph's order, the deprecated bundle, channel
// and package, and the v0-skipped node (class "skipped").
func TestChannelGraphRenderGraph(t *testing.T) {
	c := Convert(buildValidDeclarativeConfig())
	if !c.Valid() {
		t.Fatalf("errors: %q", errorsOf(c))
	}
	a := func(v string) string { return testBundleName("anakin", v) }
	want := map[string][]GraphEdge{
		"anakin/dark": {
			edge(a("0.1.0"), a("0.1.1"), EdgeSkips, ""),
			edge(a("0.0.1"), a("0.1.1"), EdgeReplaces, ""),
			edge(a("0.0.1"), a("0.1.0"), EdgeReplaces, ""),
		},
		"anakin/light":    {edge(a("0.0.1"), a("0.1.0"), EdgeReplaces, "")},
		"boba-fett/mando": {edge("boba-fett.v1.0.0", "boba-fett.v2.0.0", EdgeReplaces, "")},
	}
	for _, g := range c.Graphs() {
		key := g.Package + "/" + g.Channel
		if got := g.AllEdges(); !slices.Equal(got, want[key]) {
			t.Errorf("%s edges = %+v, want %+v", key, got, want[key])
		}
		var nodes []string
		for _, n := range g.Nodes {
			nodes = append(nodes, n.Name)
			if (n.Deprecated != "") != (n.Name == a("0.0.1")) {
				t.Errorf("%s %s deprecated = %q", key, n.Name, n.Deprecated)
			}
			if n.SkippedByV0 != (key == "anakin/dark" && n.Name == a("0.1.0")) {
				t.Errorf("%s %s skippedByV0 = %v", key, n.Name, n.SkippedByV0)
			}
		}
		if key == "anakin/dark" && !slices.Equal(nodes, []string{a("0.1.1"), a("0.1.0"), a("0.0.1")}) {
			t.Errorf("nodes = %q (render-graph lists newest first)", nodes)
		}
		if (g.Deprecated != "") != (key == "anakin/light") {
			t.Errorf("%s channel deprecated = %q", key, g.Deprecated)
		}
		if g.Default != (g.Channel == "dark" || g.Channel == "mando") {
			t.Errorf("%s default = %v", key, g.Default)
		}
	}
	if pg := c.Package("anakin").Graph(); pg.Deprecated == "" {
		t.Error("package deprecation missing")
	}
}

// TestChannelGraphSkipRange: skipRange edges come from every entry of the
// same channel whose version is in the range (render-graph's write.go),
// never from other channels' bundles; an invalid skipRange draws nothing;
// an entry whose own version is in its range gets a self edge, as
// render-graph draws it. The sources of a skipRange are listed newest
// first (render-graph: in channel order; the oracle compares sets).
func TestChannelGraphSkipRange(t *testing.T) {
	cfg := catalogOf("p", "a", map[string]string{"p.v1": "1.0.0", "p.v1.5": "1.5.0", "p.v2": "2.0.0", "p.v3": "3.0.0", "p.other": "1.2.0"},
		newTestChannel("p", "a", ce("p.v1", ""), ce("p.v1.5", "p.v1"), cer("p.v2", "p.v1.5", ">=1.0.0 <2.0.0"), cer("p.v3", "p.v2", "<=3.0.0 >=2.0.0")),
		newTestChannel("p", "b", ce("p.other", ""), cer("p.v2", "", ">v1")),
	)
	c := Convert(cfg)
	g := c.Package("p").Channel("a").Graph()
	want := []GraphEdge{
		edge("p.v3", "p.v3", EdgeSkipRange, "<=3.0.0 >=2.0.0"),
		edge("p.v2", "p.v3", EdgeSkipRange, "<=3.0.0 >=2.0.0"),
		edge("p.v2", "p.v3", EdgeReplaces, ""),
		edge("p.v1.5", "p.v2", EdgeSkipRange, ">=1.0.0 <2.0.0"),
		edge("p.v1", "p.v2", EdgeSkipRange, ">=1.0.0 <2.0.0"),
		edge("p.v1.5", "p.v2", EdgeReplaces, ""),
		edge("p.v1", "p.v1.5", EdgeReplaces, ""),
	}
	if got := g.AllEdges(); !slices.Equal(got, want) {
		t.Errorf("edges =\n%+v\nwant\n%+v", got, want)
	}
	if g.Head != "p.v3" {
		t.Errorf("head = %q", g.Head)
	}
	if gb := c.Package("p").Channel("b").Graph(); len(gb.Edges) != 0 || gb.HeadError == "" {
		t.Errorf("channel b (invalid skipRange, two heads): %+v", gb)
	}
	// The cross-channel view matches skipRange against every bundle of
	// the package: p.other (1.2.0, channel b only) → p.v2 appears.
	pg := c.Package("p").Graph()
	var found bool
	for _, e := range pg.AllEdges() {
		if e.From == "p.other" && e.To == "p.v2" && e.Type == EdgeSkipRange {
			found = slices.Equal(e.Channels, []string{"a"})
		}
	}
	if !found {
		t.Errorf("cross-channel edge p.other → p.v2 missing: %+v", pg.AllEdges())
	}
	if _, err := json.Marshal(pg); err != nil {
		t.Fatal(err)
	}
}

// TestGraphJSON pins the field names other tools rely on.
func TestGraphJSON(t *testing.T) {
	c := Convert(catalogOf("p", "a", map[string]string{"p.v1": "1.0.0", "p.v2": "2.0.0"},
		newTestChannel("p", "a", ce("p.v1", ""), cer("p.v2", "p.v1", "<2.0.0"))))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c.Package("p").Channel("a").Graph()); err != nil {
		t.Fatal(err)
	}
	b := bytes.TrimSpace(buf.Bytes())
	const want = `{"package":"p","channel":"a","default":true,"head":"p.v2",` +
		`"nodes":[{"name":"p.v2","version":"2.0.0","image":"registry.io/p:2.0.0","skippedByV0":false,"skipRange":"<2.0.0","skipRangeFrom":[[1,1]]},` +
		`{"name":"p.v1","version":"1.0.0","image":"registry.io/p:1.0.0","skippedByV0":false}],` +
		`"edges":[{"from":"p.v1","to":"p.v2","type":"replaces"}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	v := c.Package("p").Channel("a").Entry("p.v1").InstalledView()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	v0, v1 := m["olmV0"].(map[string]any), m["olmV1"].(map[string]any)
	if v0["next"].(map[string]any)["name"] != "p.v2" || len(v0["pathToHead"].([]any)) != 1 ||
		v1["pick"].(map[string]any)["name"] != "p.v2" || len(v1["candidates"].([]any)) != 2 || m["installed"].(map[string]any)["name"] != "p.v1" {
		t.Errorf("installed view: %s", b)
	}
}
