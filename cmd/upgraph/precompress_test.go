package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/tree/manifest"
)

// TestGeneratePrecompress: generate writes a gzip copy beside every graph
// file, listed in index.json, and --no-precompress leaves them out; mirror
// keeps the source's choice unless told (--precompress,
// --no-precompress).
func TestGeneratePrecompress(t *testing.T) {
	work := t.TempDir()
	copies := func(dir string) (n int, precompressed string) {
		t.Helper()
		m, err := manifest.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		for name := range m.Files {
			if strings.HasSuffix(name, ".gz") {
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name))); err != nil {
					t.Error(err)
				}
				n++
			}
		}
		return n, m.Precompressed
	}
	with, without := filepath.Join(work, "with"), filepath.Join(work, "without")
	if _, stderr, code := run(t, ".", nil, "generate", "--demo", "--out", with); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := run(t, ".", nil, "generate", "--demo", "--no-precompress", "--out", without); code != 0 {
		t.Fatal(stderr)
	}
	if n, p := copies(with); n == 0 || p != "gzip" {
		t.Errorf("generate: %d copies, precompressed %q", n, p)
	}
	if n, p := copies(without); n != 0 || p != "" {
		t.Errorf("generate --no-precompress: %d copies, precompressed %q", n, p)
	}
	for _, tc := range []struct {
		from  string
		flags []string
		want  bool
	}{
		{with, nil, true},
		{without, nil, false},
		{without, []string{"--precompress"}, true},
		{with, []string{"--no-precompress"}, false},
	} {
		out := filepath.Join(t.TempDir(), "mirror")
		args := append([]string{"mirror", "--from", tc.from, "--out", out}, tc.flags...)
		if _, stderr, code := run(t, ".", nil, args...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
		if n, _ := copies(out); (n > 0) != tc.want {
			t.Errorf("%v: %d copies", args, n)
		}
	}
}
