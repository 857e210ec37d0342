package bundle

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/upgraph/upgraph/internal/bundletest"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// generatedAt is fixed so that trees and bundles compare byte for byte.
var generatedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// The demo's 4.16.0 amd64 payload digest, which has two signatures in
// the test tree.
const demo4160amd64 = "c5e6fcac0d4fa91794b846d0f3f87600dab240f6490f0865684206954fee6761"

// testSource is an input a source tree is generated from.
type testSource struct {
	name      string
	releases  source.Source
	graphData fs.FS
	gdOpts    graphdata.Options
}

func testSources() []testSource {
	return []testSource{{
		name:      "demo",
		releases:  &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		graphData: upgraph.DemoGraphData(),
		gdOpts:    graphdata.DefaultOptions(),
	}}
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

// entry is one tar entry of a bundle, for tests that rebuild bundles.
type entry = bundletest.Entry

// wantProblems checks that err is an *Error naming each file with a
// reason containing the given text, and nothing else.
func wantProblems(t *testing.T, err error, want map[string]string) {
	t.Helper()
	ve, ok := err.(*Error)
	if !ok {
		t.Fatalf("error %v (%T), want *Error naming %v", err, err, want)
	}
	got := map[string]string{}
	for _, p := range ve.Problems {
		got[p.File] += p.Reason + "; "
	}
	for file, reason := range want {
		if !strings.Contains(got[file], reason) {
			t.Errorf("problems of %s: %q, want one containing %q", file, got[file], reason)
		}
		delete(got, file)
	}
	for file, reason := range got {
		t.Errorf("unexpected problem: %s: %s", file, reason)
	}
	if t.Failed() {
		t.Logf("full error:\n%v", err)
	}
}
