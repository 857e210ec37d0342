package site

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
)

func TestPrefix(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"", "", ""},
		{"/", "", ""},
		{"api/upgrades_info", "/api/upgrades_info", ""},
		{"/api/upgrades_info/", "/api/upgrades_info", ""},
		{"/a-b.c_d~e", "/a-b.c_d~e", ""},
		{"/a//b", "", `want path segments such as /api/upgrades_info, without "//", "." or ".."`},
		{"/a/../b", "", `want path segments such as /api/upgrades_info, without "//", "." or ".."`},
		{"/a b", "", `' ' is not allowed: want letters, digits and -._~ between slashes`},
		{"/a%2f", "", `'%' is not allowed: want letters, digits and -._~ between slashes`},
	} {
		got, err := Prefix(tc.in)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != tc.want || gotErr != tc.err {
			t.Errorf("Prefix(%q) = %q, %q; want %q, %q", tc.in, got, gotErr, tc.want, tc.err)
		}
	}
}

func TestSourceKind(t *testing.T) {
	dir := t.TempDir()
	treeDir := filepath.Join(dir, "tree")
	empty := filepath.Join(dir, "empty")
	bundle := filepath.Join(dir, "b.tar.gz")
	text := filepath.Join(dir, "notes.txt")
	for _, d := range []string{treeDir, empty} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, data := range map[string][]byte{
		filepath.Join(treeDir, manifest.FileName): []byte("{}"),
		bundle: {0x1f, 0x8b, 8, 0},
		text:   []byte("text"),
	} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		flag, p string
		kind    tree.Kind
		err     string
	}{
		{"LOCATION", treeDir, tree.KindDir, ""},
		{"LOCATION", "oci://registry.example/tree:v1", tree.KindOCI, ""},
		{"--s3", "s3://bucket/prefix", tree.KindS3, ""},
		{"--dir", treeDir, tree.KindDir, ""},
		{"--dir", bundle, tree.KindBundle, ""},
		{"--bundle", bundle, tree.KindBundle, ""},
		{"--dir", empty, tree.KindDir, "--dir " + empty + ": not a tree written by upgraph generate (no " + manifest.FileName + ")"},
		{"--dir", text, tree.KindBundle, "--dir " + text + ": neither a tree directory nor a bundle (.tar.gz)"},
		{"--bundle", text, tree.KindBundle, "--bundle " + text + ": not a bundle (.tar.gz) written by upgraph mirror --bundle"},
		{"--bundle", treeDir, tree.KindBundle, "--bundle " + treeDir + ": a directory, want a bundle written by upgraph mirror --bundle (serve a tree with --dir)"},
		{"--dir", filepath.Join(dir, "missing"), tree.KindBundle, "--dir " + filepath.Join(dir, "missing") + ": no such file or directory"},
	} {
		kind, err := SourceKind(tc.flag, tc.p)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != tc.err || (tc.err == "" && kind != tc.kind) {
			t.Errorf("SourceKind(%s, %s) = %v, %q; want %v, %q", tc.flag, tc.p, kind, gotErr, tc.kind, tc.err)
		}
	}
	if _, err := SourceKind("--s3", "http://bucket"); err == nil {
		t.Error("SourceKind(--s3, http://bucket) accepted it")
	}
}
