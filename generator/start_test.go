package generator_test

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/writer"
)

// TestStart: a generation begun before its graph is built (Start) is the
// one Render would write from its Store, byte for byte; one whose graph is
// never rendered (Abort) leaves the output, its spare and its lock as they
// were; Begin's refusal is Render's error, naming the output; and a
// started generation is rendered once.
func TestStart(t *testing.T) {
	ctx := context.Background()
	build := func(t *testing.T) *generator.Built {
		b, err := generator.Build(ctx, &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
			upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	built := build(t)
	base := t.TempDir()
	out, direct := filepath.Join(base, "out"), filepath.Join(base, "direct")
	render := func(t *testing.T, dir string, started bool, at int64) {
		t.Helper()
		opts := generator.RenderOptions{GeneratedAt: time.Unix(at, 0), Precompress: true}
		if started {
			s := generator.Start(ctx, writer.DirStore{Dir: dir}, nil)
			defer s.Abort()
			opts.Started = s
		} else {
			opts.Store = writer.DirStore{Dir: dir}
		}
		if _, err := generator.Render(ctx, built, opts); err != nil {
			t.Fatal(err)
		}
	}
	// Three runs each way: a first one, one replacing it, one over the
	// spare.
	for at := range int64(3) {
		render(t, out, true, at)
		render(t, direct, false, at)
		if got, want := readTree(t, out), readTree(t, direct); !maps.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("run %d: the tree begun by Start differs from Render's own", at)
		}
	}

	t.Run("abort", func(t *testing.T) {
		before := readTree(t, out)
		s := generator.Start(ctx, writer.DirStore{Dir: out}, nil)
		s.Abort() // the build failed, say
		s.Abort()
		if !maps.EqualFunc(readTree(t, out), before, bytes.Equal) {
			t.Error("the output changed")
		}
		names, _ := os.ReadDir(base)
		var got []string
		for _, e := range names {
			got = append(got, e.Name())
		}
		// The lock went with the run; the spare is kept.
		if want := []string{".direct.upgraph-spare", ".out.upgraph-spare", "direct", "out"}; !slices.Equal(got, want) {
			t.Errorf("beside the output: %v, want %v", got, want)
		}
		if _, err := generator.Render(ctx, built, generator.RenderOptions{Started: s, GeneratedAt: time.Unix(9, 0)}); err == nil ||
			!strings.Contains(err.Error(), "already rendered or aborted") {
			t.Errorf("Render of an aborted generation: %v", err)
		}
		render(t, out, true, 3) // the lock was released
	})

	t.Run("refused", func(t *testing.T) {
		other := filepath.Join(base, "other")
		if err := os.MkdirAll(other, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("somebody's"), 0o644); err != nil {
			t.Fatal(err)
		}
		s := generator.Start(ctx, writer.DirStore{Dir: other}, nil)
		defer s.Abort()
		_, err := generator.Render(ctx, built, generator.RenderOptions{Started: s, GeneratedAt: time.Unix(0, 0)})
		if err == nil || !strings.Contains(err.Error(), other) {
			t.Errorf("Render over a directory that is not a generation: %v, want an error naming it", err)
		}
		if data, _ := os.ReadFile(filepath.Join(other, "notes.txt")); string(data) != "somebody's" {
			t.Error("the directory was changed")
		}
	})
}
