package generator_test

import (
	"bytes"
	"context"
	"log/slog"
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
	"github.com/upgraph/upgraph/tree/manifest"
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
			s := generator.Start(ctx, writer.DirStore{Dir: dir}, generator.StartOptions{Precompress: true})
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
		s := generator.Start(ctx, writer.DirStore{Dir: out}, generator.StartOptions{})
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
		s := generator.Start(ctx, writer.DirStore{Dir: other}, generator.StartOptions{})
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

// TestStartPrevious: the previous generation's index.json is read for
// the runs that use it (incremental, or with gzip copies) and not for a
// full run without copies, as StartOptions say, or by Render when its
// options need it and Start was told otherwise; either way the tree is
// the one Render writes from its Store. The previous index.json is made
// unreadable (a generation still, writer.HoldsGeneration), so that
// reading it is logged.
func TestStartPrevious(t *testing.T) {
	ctx := context.Background()
	built, err := generator.Build(ctx, &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	type options struct{ full, precompress bool }
	tests := []struct {
		name          string
		start, render options
		read          bool
	}{
		{"full without copies", options{true, false}, options{true, false}, false},
		{"full with copies", options{true, true}, options{true, true}, true},
		{"incremental", options{false, false}, options{false, false}, true},
		{"incremental with copies", options{false, true}, options{false, true}, true},
		// Render reads it when Start was told it was not needed.
		{"started full, rendered with copies", options{true, false}, options{true, true}, true},
		{"started full, rendered incremental", options{true, false}, options{false, false}, true},
		// Read in the background as asked, whatever Render then does.
		{"started incremental, rendered full", options{false, false}, options{true, false}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			trees := map[bool]string{}
			for _, started := range []bool{true, false} {
				out := filepath.Join(base, map[bool]string{true: "started", false: "direct"}[started])
				trees[started] = out
				if _, err := generator.Render(ctx, built, generator.RenderOptions{
					Store: writer.DirStore{Dir: out}, GeneratedAt: time.Unix(0, 0), Precompress: true,
				}); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(out, manifest.FileName), []byte(`{"generator":"upgraph","files":"unreadable"}`), 0o644); err != nil {
					t.Fatal(err)
				}
				var logged bytes.Buffer
				log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
				opts := generator.RenderOptions{GeneratedAt: time.Unix(1, 0), Full: tc.render.full, Precompress: tc.render.precompress, Logger: log}
				if started {
					s := generator.Start(ctx, writer.DirStore{Dir: out}, generator.StartOptions{Full: tc.start.full, Precompress: tc.start.precompress, Logger: log})
					defer s.Abort()
					opts.Started = s
				} else {
					opts.Store = writer.DirStore{Dir: out}
				}
				if _, err := generator.Render(ctx, built, opts); err != nil {
					t.Fatal(err)
				}
				want := tc.read
				if !started {
					want = tc.render != options{true, false}
				}
				if read := strings.Contains(logged.String(), "index.json unreadable"); read != want {
					t.Errorf("started %v: previous index.json read %v, want %v (log: %s)", started, read, want, logged.String())
				}
			}
			if !maps.EqualFunc(readTree(t, trees[true]), readTree(t, trees[false]), bytes.Equal) {
				t.Error("the tree begun by Start differs from Render's own")
			}
		})
	}
}
