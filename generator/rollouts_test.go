package generator_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// demoRollout rolls 4.16.2 out from 1790000000 over 1000 minutes from 10 %.
const demoRollout = "version: 4.16.2\nstart_epoch: 1790000000\nstart_percentage: 0.1\nduration_minutes: 1000\n"

func buildRollouts(t *testing.T, files map[string]string) *generator.Built {
	t.Helper()
	gd := mapFS(t, upgraph.DemoGraphData(), files)
	b, err := generator.Build(context.Background(), &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()}, gd,
		generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type wireGraph struct {
	Nodes []struct {
		Version string `json:"version"`
	} `json:"nodes"`
	Edges            [][2]int `json:"edges"`
	ConditionalEdges []struct {
		Edges []struct{ From, To string } `json:"edges"`
	} `json:"conditionalEdges"`
}

// into lists the versions with an edge or conditional edge into to.
func into(t *testing.T, data []byte, to string) []string {
	t.Helper()
	var g wireGraph
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	var from []string
	for _, e := range g.Edges {
		if g.Nodes[e[1]].Version == to {
			from = append(from, g.Nodes[e[0]].Version)
		}
	}
	for _, ce := range g.ConditionalEdges {
		for _, e := range ce.Edges {
			if e.To == to {
				from = append(from, e.From+"?")
			}
		}
	}
	slices.Sort(from)
	return from
}

// TestRenderRollouts: at 30 % of a rollout from 10 %, buckets 1–3 (and the
// canary 0) read the tree everyone reads, which offers 4.16.2; buckets
// 4–10 read their own copies of exactly the files that change: no edge
// and no conditional edge into 4.16.2, the rest of each graph the same,
// and 4.16.2's own per-version graph (edges out of it) shared.
func TestRenderRollouts(t *testing.T) {
	b := buildRollouts(t, map[string]string{"rollouts/4.16.2.yaml": demoRollout})
	if len(b.Rollouts) != 1 {
		t.Fatalf("rollouts: %+v", b.Rollouts)
	}
	dir := filepath.Join(t.TempDir(), "out")
	at := int64(1790000000 + 300*60)
	m, err := generator.Render(context.Background(), b, generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(at, 0),
		Rollouts: &rollout.Plan{Rollouts: b.Rollouts, Buckets: 10, At: at},
	})
	if err != nil {
		t.Fatal(err)
	}
	m2, files := checkTree(t, dir)
	ro := m2.Rollouts
	if ro == nil || ro.Buckets != 10 || ro.NoIDBucket != 10 || len(ro.Releases) != 1 {
		t.Fatalf("index.json rollouts: %+v", ro)
	}
	if r := ro.Releases[0]; r.OpenBuckets != 3 || r.Throttling < 0.3699 || r.Throttling > 0.3701 {
		t.Errorf("at 30 %% of the duration from 10 %%: throttling %v, %d buckets open; want 0.37, 3", r.Throttling, r.OpenBuckets)
	}
	// Bucket 4 opens at 0.4: 1790000000 + (0.3/0.9)·60000 s.
	if ro.NextChange != time.Unix(1790000000+20000, 0).UTC().Format(time.RFC3339) {
		t.Errorf("nextChange %s", ro.NextChange)
	}
	if _, ok := files[manifest.SchemaDir+"rollout.schema.json"]; !ok {
		t.Error("a tree with rollouts lacks schema/rollout.schema.json")
	}
	channel := "graph/amd64/fast-4.16.json"
	if got := ro.Variants[channel]; !slices.Equal(got, []int{4, 5, 6, 7, 8, 9, 10}) {
		t.Errorf("variants of %s: %v, want buckets 4–10", channel, got)
	}
	if base := into(t, files[channel], "4.16.2"); len(base) == 0 {
		t.Fatalf("the shared %s has no edge into 4.16.2", channel)
	}
	for k := 4; k <= 10; k++ {
		if got := into(t, files[manifest.RolloutPath(k, channel)], "4.16.2"); len(got) != 0 {
			t.Errorf("bucket %d: edges into 4.16.2 from %v", k, got)
		}
	}
	// 4.16.0 → 4.16.2 is conditional (ExampleEtcdRisk): gone as well.
	v0 := "graph/amd64/fast-4.16/4.16.0.json"
	if got := into(t, files[v0], "4.16.2"); !slices.Equal(got, []string{"4.16.0?"}) {
		t.Errorf("shared %s: into 4.16.2 %v, want the conditional edge", v0, got)
	}
	if got := into(t, files[manifest.RolloutPath(7, v0)], "4.16.2"); len(got) != 0 {
		t.Errorf("bucket 7 %s: into 4.16.2 %v", v0, got)
	}
	if _, varies := ro.Variants["graph/amd64/fast-4.16/4.16.2.json"]; varies {
		t.Error("4.16.2's own per-version graph (edges out of it) varies")
	}
	for name, ks := range ro.Variants {
		if slices.ContainsFunc(ks, func(k int) bool { return k < 4 }) {
			t.Errorf("%s: open buckets %v have copies", name, ks)
		}
	}
	if m.Rollouts.SharedFiles+len(ro.Variants) != m.Counts.Graphs+m.Counts.VersionGraphs {
		t.Errorf("shared %d + varying %d != graph files %d", ro.SharedFiles, len(ro.Variants), m.Counts.Graphs+m.Counts.VersionGraphs)
	}
	t.Logf("%d graph files shared, %d vary: %d per-bucket copies, %d distinct", ro.SharedFiles, len(ro.Variants), ro.VariantFiles, ro.DistinctVariants)

	// Without rollouts, no rollouts in index.json and no rollout schema.
	plain := filepath.Join(t.TempDir(), "plain")
	render(t, demoBuilt(t), plain)
	pm, pfiles := checkTree(t, plain)
	if pm.Rollouts != nil {
		t.Error("a tree without rollouts records some")
	}
	if _, ok := pfiles[manifest.SchemaDir+"rollout.schema.json"]; ok {
		t.Error("a tree without rollouts ships the rollout schema")
	}
	if _, ok := pfiles["viewer/rollouts.js"]; ok {
		t.Error("a tree without rollouts ships the viewer's rollouts.js")
	}
	if _, ok := files["viewer/rollouts.js"]; !ok {
		t.Error("a tree with rollouts lacks the viewer's rollouts.js")
	}
}

// TestRenderRolloutsChannel: a rollout limited to candidate-4.16 leaves
// fast-4.16 alone.
func TestRenderRolloutsChannel(t *testing.T) {
	b := buildRollouts(t, map[string]string{"rollouts/4.16.2.yaml": "version: 4.16.2\nchannels: [candidate-4.16]\nstart_epoch: 1790000000\nstart_percentage: 0\nduration_minutes: 60\n"})
	dir := filepath.Join(t.TempDir(), "out")
	at := int64(1790000000 + 30*60)
	_, err := generator.Render(context.Background(), b, generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(at, 0), NoViewer: true,
		Rollouts: &rollout.Plan{Rollouts: b.Rollouts, Buckets: 4, At: at},
	})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := checkTree(t, dir)
	for name, ks := range m.Rollouts.Variants {
		if filepath.Base(filepath.Dir(name)) == "fast-4.16" || filepath.Base(name) == "fast-4.16.json" {
			t.Errorf("%s varies (%v) though the rollout is in candidate-4.16 only", name, ks)
		}
		if !slices.Equal(ks, []int{3, 4}) {
			t.Errorf("%s: buckets %v, want 3 and 4 (half way from 0)", name, ks)
		}
	}
	if len(m.Rollouts.Variants) == 0 {
		t.Error("nothing varies in candidate-4.16")
	}
}
