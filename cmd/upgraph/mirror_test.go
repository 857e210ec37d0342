package main

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/internal/bundletest"
)

// TestGenerateMirror re-hosts a tree through `upgraph serve` and
// `generate --releases cincinnati:URL`: the mirror serves the same files,
// and so does a mirror of the mirror.
func TestGenerateMirror(t *testing.T) {
	work := t.TempDir()
	env := []string{"SOURCE_DATE_EPOCH=1700000000"}
	if _, stderr, code := run(t, work, env, "generate", "--demo", "--out", "origin"); code != 0 {
		t.Fatalf("generate --demo: exit %d\n%s", code, stderr)
	}
	addr := startServe(t, filepath.Join(work, "origin"))
	bundletest.CopyTree(t, "../../testdata/demo/graph-data", filepath.Join(work, "graph-data"))
	demoArches := "--arch=amd64,arm64"

	_, stderr, code := run(t, work, env, "generate", "--releases", "cincinnati:"+addr+"/graph", "--graph-data", "graph-data", demoArches, "--out", "mirror")
	if code != 0 {
		t.Fatalf("mirror: exit %d\n%s", code, stderr)
	}
	origin, mirrored := treeDigest(t, filepath.Join(work, "origin")), treeDigest(t, filepath.Join(work, "mirror"))
	delete(origin, "index.json")
	delete(mirrored, "index.json")
	if !maps.Equal(origin, mirrored) {
		t.Errorf("mirror differs from its origin: %d vs %d files", len(mirrored), len(origin))
	}

	// Without graph-data the channels are named; a mirror of the mirror is
	// byte-identical, index.json included.
	channels := "--channels=stable-4.15,fast-4.15,candidate-4.15,stable-4.16,fast-4.16,candidate-4.16"
	addr2 := startServe(t, filepath.Join(work, "mirror"))
	for i, endpoint := range []string{addr + "/graph", addr2 + "/api/upgrades_info/graph"} {
		out := []string{"m1", "m2"}[i]
		if _, stderr, code := run(t, work, env, "generate", "--releases", "cincinnati:"+endpoint, channels, demoArches, "--out", out); code != 0 {
			t.Fatalf("mirror %s: exit %d\n%s", out, code, stderr)
		}
	}
	if a, b := treeDigest(t, filepath.Join(work, "m1")), treeDigest(t, filepath.Join(work, "m2")); !maps.Equal(a, b) {
		t.Error("a mirror of the mirror is not byte-identical")
	}

	_, stderr, code = run(t, work, env, "generate", "--releases", "cincinnati:"+addr+"/graph", "--out", "none")
	if code == 0 || !strings.Contains(stderr, "--channels") {
		t.Errorf("no channel list: exit %d, stderr %q; want an error asking for --graph-data or --channels", code, stderr)
	}
}
