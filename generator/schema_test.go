package generator_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/schema"
	"github.com/upgraph/upgraph/tree/writer"
	"github.com/upgraph/upgraph/viewer"
)

// TestOutputMatchesSchemas: every graph file of the demo tree is a valid
// policy-engine response, index.json a valid manifest and viewer/graphs.json
// a valid table of graphs.
func TestOutputMatchesSchemas(t *testing.T) {
	ctx := context.Background()
	built, err := generator.Build(ctx, &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := generator.Render(ctx, built, generator.RenderOptions{Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(0, 0), Precompress: true}); err != nil {
		t.Fatal(err)
	}
	check := func(kind schema.Kind, path string) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := schema.Validate(kind, data)
		if err != nil {
			t.Errorf("%s: %v", path, err)
		}
		for _, p := range ps {
			t.Errorf("%s: %s", path, p)
		}
	}
	graphs := 0
	err = filepath.WalkDir(filepath.Join(dir, "graph"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") {
			check(schema.Graph, path)
			graphs++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if graphs < 40 {
		t.Errorf("validated only %d graph files", graphs)
	}
	check(schema.Index, filepath.Join(dir, "index.json"))
	// Present in every tree with the viewer (the default).
	check(schema.ViewerGraphs, filepath.Join(dir, filepath.FromSlash(viewer.SummaryFile)))
}
