package diff

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/writer"
)

// demoInputs returns editable copies of the demo releases and graph-data.
func demoInputs(t *testing.T) (releases, graphData fstest.MapFS) {
	t.Helper()
	return copyFS(t, upgraph.DemoReleases()), copyFS(t, upgraph.DemoGraphData())
}

func copyFS(t *testing.T, fsys fs.FS) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		m[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// buildTree generates a tree as `upgraph generate` would, with a fixed
// generation time, into a new directory.
func buildTree(t *testing.T, releases, graphData fs.FS) string {
	t.Helper()
	ctx := context.Background()
	built, err := generator.Build(ctx, &source.MetadataDir{Dir: "demo", FS: releases}, graphData,
		generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tree")
	if _, err := generator.Render(ctx, built, generator.RenderOptions{Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(0, 0), NoViewer: true}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func open(t *testing.T, spec string) *Source {
	t.Helper()
	s, err := mirror.OpenSource(t.Context(), spec, mirror.SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func compare(t *testing.T, old, new *Source, opts Options) *Result {
	t.Helper()
	r, err := Compare(t.Context(), old, new, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func render(t *testing.T, r *Result, f Format) string {
	t.Helper()
	var b strings.Builder
	if err := r.Write(&b, f, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// copyDir copies a tree as plain files (a generated tree hard-links
// identical files, which an edit must not reach through).
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
