package source

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// TestParse: prefixes say what a source is; without one, an existing
// path is a directory or file source, and anything else must be an image
// reference naming its registry.
func TestParse(t *testing.T) {
	root := t.TempDir()
	dirPath := filepath.Join(root, "configs")
	filePath := filepath.Join(root, "index.json")
	if err := os.Mkdir(dirPath, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filePath, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	client := newClient(t)
	tests := []struct {
		spec string
		want string // the source's String(), or "error: ..." (a substring)
	}{
		{"dir:" + dirPath, "dir:" + dirPath},
		{"file:" + filePath, "file:" + filePath},
		{dirPath, "dir:" + dirPath},
		{filePath, "file:" + filePath},
		{"dir:" + filepath.Join(root, "later"), "dir:" + filepath.Join(root, "later")}, // checked when loaded
		{"image:quay.io/operatorhubio/catalog:latest", "image:quay.io/operatorhubio/catalog:latest"},
		{"docker://registry.redhat.io/redhat/community-operator-index:v4.21", "image:registry.redhat.io/redhat/community-operator-index:v4.21"},
		{"registry.redhat.io/redhat/community-operator-index:v4.21", "image:registry.redhat.io/redhat/community-operator-index:v4.21"},
		{"registry.redhat.io/redhat/community-operator-index@sha256:" + strings.Repeat("ab", 32), "image:registry.redhat.io/redhat/community-operator-index@sha256:" + strings.Repeat("ab", 32)},
		{"localhost:5000/catalog:v1", "image:localhost:5000/catalog:v1"},
		{"127.0.0.1:5000/ns/catalog:v1", "image:127.0.0.1:5000/ns/catalog:v1"},
		{"localhost/catalog:v1", "image:localhost/catalog:v1"},
		{"http://127.0.0.1:5000/catalog:v1", "image:http://127.0.0.1:5000/catalog:v1"},
		{"image:docker.io/library/catalog:latest", "image:docker.io/library/catalog:latest"},
		{"image:catalog:latest", "error: image reference"}, // no defaulting to Docker Hub
		{"", "error: empty"},
		{"dir:", `error: nothing after "dir:"`},
		{"docker://", `error: nothing after "docker://"`},
		{"configs", "error: no such file or directory, and not an image reference naming its registry"},
		{"catalog:latest", "error: not an image reference naming its registry (HOST[:PORT]/REPO:TAG, e.g. docker.io/library/catalog:latest)"},
		{filepath.Join(root, "missing"), "error: no such file or directory"},
		{"./quay.io/x:v1", "error: no such file or directory"},
		{"image:quay.io/Bad Ref", "error: image reference"},
		{"quay.io/operatorhubio/catalog", "error: image reference"}, // a tag or digest is required
	}
	for _, tt := range tests {
		src, err := Parse(tt.spec, Options{Client: client})
		if msg, ok := strings.CutPrefix(tt.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), msg) {
				t.Errorf("Parse(%q) = %v, %v; want an error with %q", tt.spec, src, err, msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.spec, err)
			continue
		}
		if src.String() != tt.want {
			t.Errorf("Parse(%q) = %s, want %s", tt.spec, src, tt.want)
		}
	}
	if _, err := Parse("image:quay.io/x/y:v1", Options{Client: client, Platform: "linux/arm64/v8/extra"}); err == nil {
		t.Error("a bad platform was accepted")
	}
	src, err := Parse("image:quay.io/x/y:v1", Options{Client: client, Platform: "linux/arm64/v8"})
	if err != nil || src.(*Image).Platform.Variant != "v8" {
		t.Errorf("platform linux/arm64/v8: %v, %v", src, err)
	}
}

// TestParseUnreadablePaths: a path that is there but cannot be read, a
// dangling link and a missing absolute path are reported as what they
// are, never with an image reference suggested.
func TestParseUnreadablePaths(t *testing.T) {
	root := t.TempDir()
	loop := filepath.Join(root, "l1")
	if err := os.Symlink(filepath.Join(root, "l2"), loop); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(loop, filepath.Join(root, "l2")); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(root, "dangling")
	if err := os.Symlink(filepath.Join(root, "gone"), dangling); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	for spec, want := range map[string]string{
		"l1":                `catalog source "l1": a path that cannot be read: stat l1: too many levels of symbolic links`,
		loop:                "too many levels of symbolic links",
		"dangling":          `catalog source "dangling": a symbolic link to ` + filepath.Join(root, "gone") + `, which does not exist`,
		"/nonexistent/path": `catalog source "/nonexistent/path": no such file or directory`,
	} {
		_, err := Parse(spec, Options{Client: newClient(t)})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "docker.io") {
			t.Errorf("Parse(%q): %v, want %q", spec, err, want)
		}
	}
}

// TestDecodedCache: with a CacheDir, dir: and file: sources keep each
// file's blobs by the digest of its bytes, and a load after a change
// reads the unchanged files' blobs back and decodes the changed one:
// the same blobs, with positions, as a load without a cache.
func TestDecodedCache(t *testing.T) {
	root := t.TempDir()
	write := func(rel, data string) {
		t.Helper()
		p := filepath.Join(root, "configs", rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/catalog.yaml", "schema: olm.package\nname: a\n---\nschema: olm.bundle\npackage: a\nname: a.v1\nimage: quay.io/a:v1\n")
	write("b/catalog.json", `{"schema":"olm.package","name":"b"}`)
	cacheDir := t.TempDir()
	entries := func() int {
		n := 0
		for _, p := range treeFiles(t, cacheDir) {
			if strings.HasPrefix(p, "decoded-") && path.Base(p) != ".last-pruned" { // pruning's marker

				n++
			}
		}
		return n
	}
	for step, change := range []string{"", "quay.io/a:v2", "quay.io/a:v1"} {
		if change != "" {
			write("a/catalog.yaml", "schema: olm.package\nname: a\n---\nschema: olm.bundle\npackage: a\nname: a.v1\nimage: "+change+"\n")
		}
		for _, spec := range []string{"dir:" + filepath.Join(root, "configs"), "file:" + filepath.Join(root, "configs", "a", "catalog.yaml")} {
			plain, err := Parse(spec, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := plain.Load(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			cached, err := Parse(spec, Options{CacheDir: cacheDir})
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := cached.Load(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			sameMetas(t, spec, got, want)
			for i := range got.Metas {
				if got.Metas[i].Pos != want.Metas[i].Pos {
					t.Errorf("%s: meta %d at %+v, want %+v", spec, i, got.Metas[i].Pos, want.Metas[i].Pos)
				}
			}
		}
		// One entry per file content met: a's first bytes and b's, then
		// a's second bytes; going back to the first adds none.
		if n, want := entries(), []int{2, 3, 3}[step]; n != want {
			t.Errorf("step %d: %d entries in the cache, want %d", step, n, want)
		}
	}
}
