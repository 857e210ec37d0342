package tree

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/upgraph/upgraph/tree/manifest"
)

func TestCheckLocation(t *testing.T) {
	dir := t.TempDir()
	treeDir := filepath.Join(dir, "tree")
	notTree := filepath.Join(dir, "empty")
	bundle := filepath.Join(dir, "b.tar.gz")
	notBundle := filepath.Join(dir, "b2.tar.gz")
	for _, d := range []string{treeDir, notTree} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, data := range map[string][]byte{
		filepath.Join(treeDir, manifest.FileName): []byte("{}"),
		bundle:    {0x1f, 0x8b, 8, 0},
		notBundle: []byte("not gzip"),
	} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, spec string
		endpoints  bool
		want       string
	}{
		{"tree", treeDir, false, ""},
		{"bundle", bundle, false, ""},
		{"s3", "s3://bucket/prefix", false, ""},
		{"endpoint accepted", "https://example.com/graph", true, ""},
		{"empty", "", false, "--from: empty value: want " + Syntax},
		{"endpoint refused", "https://example.com/graph", false, "--from https://example.com/graph: a graph endpoint, not a tree (want " + Syntax + ")"},
		{"not a tree", notTree, false, "--from " + notTree + ": not a tree written by upgraph generate: stat " + filepath.Join(notTree, manifest.FileName) + ": no such file or directory"},
		{"not a bundle", notBundle, false, "--from " + notBundle + ": neither a tree directory nor a bundle (.tar.gz)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if err := CheckLocation("--from", tc.spec, tc.endpoints); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("CheckLocation(%q) = %q, want %q", tc.spec, got, tc.want)
			}
		})
	}
}
