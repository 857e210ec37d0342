package path

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/synth"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/writer"
)

const (
	conformanceFixture = "../../../shared/conformance/20211124.083150"
	realGraphData      = "../../../shared/graph-data"
)

// treeDir is where the shared trees are written (removed by TestMain).
var treeDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "upgraph-path-test-")
	if err != nil {
		panic(err)
	}
	treeDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type lazyTree struct {
	once sync.Once
	dir  string
	err  error
}

var conformanceTree, realTree lazyTree

// get builds the tree once per test binary: both take seconds.
func (l *lazyTree) get(tb testing.TB, name string, build func(out string) error) string {
	tb.Helper()
	l.once.Do(func() {
		l.dir = filepath.Join(treeDir, name)
		l.err = build(l.dir)
	})
	if l.err != nil {
		tb.Fatal(l.err)
	}
	return l.dir
}

// conformanceTreeDir is the tree of the largest conformance fixture
// (4.6–4.9, conditional risks on 4.7.4), 4.6–4.8 channels, amd64.
func conformanceTreeDir(tb testing.TB) string {
	return conformanceTree.get(tb, "conformance", func(out string) error {
		return buildTree(out, &source.GraphFile{Path: filepath.Join(conformanceFixture, "graph-gb-raw.json")},
			os.DirFS(filepath.Join(conformanceFixture, "cincinnati-graph-data")), graphdata.UpstreamOptions(),
			`^(stable|fast|eus)-4\.[678]$`)
	})
}

var keepRelease = regexp.MustCompile(`^4\.1[2-6]\.[^+]*\+amd64\.json$`)

// realTreeDir is a tree of the real graph-data snapshot with synthesised
// releases: the 4.14–4.16 stable and EUS channels, amd64, at real scale.
func realTreeDir(tb testing.TB) string {
	return realTree.get(tb, "real", func(out string) error {
		gd := os.DirFS(realGraphData)
		releases, err := synth.MetadataFS(gd)
		if err != nil {
			return err
		}
		// The channels drawn have only 4.12–4.16 releases: leaving out the
		// others and other arches gives the same graphs, in half the time.
		for name := range releases {
			if !keepRelease.MatchString(name) {
				delete(releases, name)
			}
		}
		return buildTree(out, &source.MetadataDir{Dir: "synthesised", FS: releases}, gd, graphdata.DefaultOptions(),
			`^(stable-4\.1[456]|eus-4\.1[46])$`)
	})
}

// buildTree generates a tree of the channels matching the pattern, amd64.
func buildTree(out string, releases source.Source, gd fs.FS, opts graphdata.Options, channels string) error {
	ctx := context.Background()
	b, err := generator.Build(ctx, releases, gd, generator.BuildOptions{GraphData: opts})
	if err != nil {
		return err
	}
	_, err = generator.Render(ctx, b, generator.RenderOptions{
		Store: writer.DirStore{Dir: out}, GeneratedAt: time.Unix(0, 0),
		Channels: regexp.MustCompile(channels), Arches: []string{"amd64"},
	})
	return err
}
