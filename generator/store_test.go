package generator_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/writer"
)

// noLinks hides the staging's Link method, as a store without hard links
// (an object store) would.
type noLinks struct{ writer.Store }

type stagingOnly struct{ writer.Staging }

func (s noLinks) Begin(ctx context.Context) (writer.Staging, error) {
	st, err := s.Store.Begin(ctx)
	return stagingOnly{st}, err
}

// TestStoreWithoutLinks: a store that cannot link gets every file written
// in full, with the same bytes as the linked tree.
func TestStoreWithoutLinks(t *testing.T) {
	built, err := generator.Build(context.Background(), &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	trees := map[string]writer.Store{"linked": writer.DirStore{Dir: filepath.Join(base, "linked")}, "copied": noLinks{writer.DirStore{Dir: filepath.Join(base, "copied")}}}
	contents := map[string]map[string]string{}
	for name, store := range trees {
		m, err := generator.Render(context.Background(), built, generator.RenderOptions{Store: store, GeneratedAt: time.Unix(0, 0)})
		if err != nil {
			t.Fatal(err)
		}
		contents[name] = map[string]string{}
		links := 0
		for f := range m.Files {
			p := filepath.Join(base, name, filepath.FromSlash(f))
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			contents[name][f] = string(data)
			if st, err := os.Stat(p); err == nil && nlink(st) > 1 {
				links++
			}
		}
		if name == "copied" && (links != 0 || m.Counts.DistinctFiles != len(m.Files)) {
			t.Errorf("copied tree: %d hard-linked files, %d distinct of %d", links, m.Counts.DistinctFiles, len(m.Files))
		}
		if name == "linked" && links == 0 {
			t.Error("linked tree has no hard links")
		}
	}
	if !maps.Equal(contents["linked"], contents["copied"]) {
		t.Error("linked and copied trees differ")
	}
}
