package airgap

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// generatedAt is fixed so that trees and bundles compare byte for byte.
var generatedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// ocpRelease is the repository every demo and fixture payload is in.
const ocpRelease = "quay.io/openshift-release-dev/ocp-release"

// The demo's 4.16.0 amd64 payload digest, which has two signatures in
// the test tree, and one no release has.
const (
	demo4160amd64 = "c5e6fcac0d4fa91794b846d0f3f87600dab240f6490f0865684206954fee6761"
	unknownDigest = "0000000000000000000000000000000000000000000000000000000000000000"
)

// testSource is an input a source tree is generated from.
type testSource struct {
	name      string
	releases  source.Source
	graphData fs.FS
	gdOpts    graphdata.Options
}

func testSources() []testSource {
	in := []testSource{{
		name:      "demo",
		releases:  &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		graphData: upgraph.DemoGraphData(),
		gdOpts:    graphdata.DefaultOptions(),
	}}
	// Four arches, abstract releases and conditional edges, one of them to
	// a single arch: the largest upstream conformance fixture.
	dir := "../../../shared/conformance/20211124.083150"
	if _, err := os.Stat(dir); err == nil {
		in = append(in, testSource{
			name:      "conformance",
			releases:  &source.GraphFile{Path: filepath.Join(dir, "graph-gb-raw.json")},
			graphData: os.DirFS(filepath.Join(dir, "cincinnati-graph-data")),
			gdOpts:    graphdata.UpstreamOptions(),
		})
	}
	return in
}

var demoOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "upgraph-bundle-test-")
	if err != nil {
		return "", err
	}
	_, err = generateTree(testSources()[0], filepath.Join(dir, "demo"))
	return filepath.Join(dir, "demo"), err
})

// demoTree is the demo tree with signatures, generated once per test
// binary; tests must not modify it (bundletest.CopyTree first).
func demoTree(t *testing.T) string {
	t.Helper()
	dir, err := demoOnce()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if dir, err := demoOnce(); err == nil {
		os.RemoveAll(filepath.Dir(dir))
	}
	if trees, err := catalogTrees(); err == nil && trees[0] != "" {
		os.RemoveAll(filepath.Dir(trees[0]))
	}
	os.Exit(code)
}

// generateTree writes the tree upgraph generates from in, with two
// signatures for the 4.16.0 amd64 payload when it is the demo.
func generateTree(in testSource, out string) (*manifest.Manifest, error) {
	b, err := generator.Build(context.Background(), in.releases, in.graphData, generator.BuildOptions{GraphData: in.gdOpts})
	if err != nil {
		return nil, err
	}
	if in.name == "demo" {
		b.Signatures = map[string][][]byte{"sha256:" + demo4160amd64: {[]byte("sig one\x00\xff"), []byte("sig two")}}
	}
	return generator.Render(context.Background(), b, generator.RenderOptions{Store: writer.DirStore{Dir: out}, GeneratedAt: generatedAt})
}

// rewrite is the payload mirror the tests apply.
var rewrite = []mirror.PayloadMirror{{Source: "quay.io/openshift-release-dev", Mirror: "registry.local:5000/ocp"}}

func rewritten(t *testing.T, payload string) string {
	t.Helper()
	r, err := mirror.NewPayloadRewriter(rewrite)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := r.Rewrite(payload)
	if !ok {
		t.Fatalf("no payload mirror for %s", payload)
	}
	return p
}
