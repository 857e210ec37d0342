package generator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	upgraph "github.com/upgraph/upgraph"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/schema"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
	"github.com/upgraph/upgraph/viewer"
)

// summaryDoc is the content of viewer.SummaryFile.
type summaryDoc struct {
	Format   int              `json:"format"`
	Arches   []string         `json:"arches"`
	Channels []string         `json:"channels"`
	Graphs   []manifest.Graph `json:"graphs"`
}

// TestViewerSummary: a tree with the viewer carries its table of graphs
// (viewer.SummaryFile), listed in index.json like any file, agreeing with
// it and independent of the generation time; a tree without the viewer
// does not.
func TestViewerSummary(t *testing.T) {
	built, err := generator.Build(context.Background(), &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	var first []byte
	for k, noViewer := range []bool{false, false, true} {
		dir := filepath.Join(base, fmt.Sprint(k))
		m, err := generator.Render(context.Background(), built, generator.RenderOptions{
			Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Date(2026, 1, 2, 3, 4, 5+k, 0, time.UTC), NoViewer: noViewer,
		})
		if err != nil {
			t.Fatal(err)
		}
		f, listed := m.Files[viewer.SummaryFile]
		data, readErr := os.ReadFile(filepath.Join(dir, filepath.FromSlash(viewer.SummaryFile)))
		if noViewer {
			if listed || readErr == nil {
				t.Errorf("tree without the viewer has %s", viewer.SummaryFile)
			}
			continue
		}
		if readErr != nil || !listed {
			t.Fatalf("%s: listed %v, %v", viewer.SummaryFile, listed, readErr)
		}
		if first == nil {
			first = data
		} else if !bytes.Equal(data, first) {
			t.Errorf("%s depends on the generation time:\n%s\n%s", viewer.SummaryFile, first, data)
		}
		if f.SHA256 != manifest.SHA256(data) || f.Size != int64(len(data)) {
			t.Errorf("index.json lists %s as %+v, the file has %d bytes", viewer.SummaryFile, f, len(data))
		}
		if !bytes.HasSuffix(data, []byte("}\n")) || bytes.Count(data, []byte("\n")) != 1 {
			t.Errorf("%s is not one line of compact JSON: %q", viewer.SummaryFile, data)
		}
		var got summaryDoc
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("%s: %v", viewer.SummaryFile, err)
		}
		want := summaryDoc{Format: m.Format, Arches: m.Arches, Channels: m.Channels}
		for _, g := range m.Graphs {
			g.Versions, g.Inputs = nil, "" // not for the pickers
			want.Graphs = append(want.Graphs, g)
		}
		if got, want := jsonOf(t, got), jsonOf(t, want); got != want {
			t.Errorf("%s says\n%s\nindex.json says\n%s", viewer.SummaryFile, got, want)
		}
		if len(got.Graphs) != 12 { // 6 channels × 2 arches
			t.Errorf("%s: %d graphs", viewer.SummaryFile, len(got.Graphs))
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestViewerSummaryCatalogs: in a tree with catalogs the viewer's table
// lists them for the operators view (name, summary path, packages, as
// index.json has them) and is valid against its schema; the table of a
// tree without catalogs has no catalogs member (TestViewerSummary).
func TestViewerSummaryCatalogs(t *testing.T) {
	cat := sharedCatalogView(t, "community")
	dir := t.TempDir()
	m, err := generator.Render(context.Background(), demoBuilt(t), generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Catalogs: []*catviews.Catalog{cat},
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(viewer.SummaryFile)))
	if err != nil {
		t.Fatal(err)
	}
	type catalog struct {
		Name     string   `json:"name"`
		Path     string   `json:"path"`
		Packages []string `json:"packages"`
	}
	var got struct {
		summaryDoc
		Catalogs []catalog `json:"catalogs"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("%s: %v", viewer.SummaryFile, err)
	}
	var want []catalog
	for _, c := range m.Catalogs {
		want = append(want, catalog{Name: c.Name, Path: c.Path, Packages: c.Packages})
	}
	if jsonOf(t, got.Catalogs) != jsonOf(t, want) || len(got.Catalogs) != 1 || len(got.Catalogs[0].Packages) != 33 {
		t.Errorf("%s lists the catalogs\n%s\nindex.json has\n%s", viewer.SummaryFile, jsonOf(t, got.Catalogs), jsonOf(t, want))
	}
	if len(got.Graphs) != 12 {
		t.Errorf("%s: %d graphs beside the catalog", viewer.SummaryFile, len(got.Graphs))
	}
	problems, err := schema.Validate(schema.ViewerGraphs, data)
	if err != nil || len(problems) > 0 {
		t.Errorf("%s against its schema: %v %v", viewer.SummaryFile, problems, err)
	}
}
