package writer

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRemoveTree(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(filepath.Join(outside, "keep"), 0o755); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(base, "tree")
	for _, f := range []string{
		"index.json",
		"graph/amd64/stable-4.16.json",
		"graph/amd64/stable-4.16/4.16.1.json",
		"graph/amd64/stable-4.16/deeper/still/x.json",
		"graph/arm64/fast-4.16/4.16.2.json",
		"schema/a.json",
	} {
		p := filepath.Join(tree, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A link to a directory elsewhere, at the depth removed in parallel:
	// the link goes, what it points to stays.
	if err := os.Symlink(outside, filepath.Join(tree, "graph/amd64/link")); err != nil {
		t.Fatal(err)
	}
	if err := removeTree(tree); err != nil {
		t.Fatalf("removeTree: %v", err)
	}
	if _, err := os.Lstat(tree); !os.IsNotExist(err) {
		t.Fatalf("tree still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "keep")); err != nil {
		t.Fatalf("followed a symlink: %v", err)
	}
	if err := removeTree(filepath.Join(base, "missing")); err != nil {
		t.Fatalf("missing directory: %v", err)
	}
}
