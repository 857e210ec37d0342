package tree_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
)

// TestExtract: a tree read over http is copied whole into a private
// directory under the parent given, each file checked, duplicates read
// once and hard-linked, index.json byte for byte; Close removes it. A
// file that is not the one index.json lists fails the copy, naming the
// file, and leaves nothing behind.
func TestExtract(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{"graph/a.json": "{}", "graph/b/c.json": "{}", "signatures/s/signature-1": "sig"}
	m := manifest.Manifest{Format: manifest.Format, GeneratedAt: "2024-01-01T00:00:00Z", Files: map[string]manifest.File{}}
	for name, body := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		m.Files[name] = manifest.File{Size: int64(len(body)), SHA256: manifest.SHA256([]byte(body))}
	}
	index, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, manifest.FileName), index, 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var requests []string
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, r.URL.Path)
		mu.Unlock()
		http.FileServer(http.Dir(src)).ServeHTTP(w, r)
	}))
	defer web.Close()

	parent := t.TempDir()
	remote, err := tree.Open(t.Context(), web.URL, tree.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	local, err := tree.Extract(t.Context(), remote, parent)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(local.Dir(), parent+string(filepath.Separator)) || local.String() != remote.String() {
		t.Errorf("extracted %s into %s, want a directory under %s", local, local.Dir(), parent)
	}
	for name, body := range files {
		if data, err := local.ReadFile(t.Context(), name); err != nil || string(data) != body {
			t.Errorf("%s: %q, %v; want %q", name, data, err, body)
		}
	}
	if data, err := os.ReadFile(filepath.Join(local.Dir(), manifest.FileName)); err != nil || string(data) != string(index) {
		t.Errorf("index.json: %v, not the tree's", err)
	}
	a, errA := os.Stat(filepath.Join(local.Dir(), "graph/a.json"))
	c, errC := os.Stat(filepath.Join(local.Dir(), "graph/b/c.json"))
	if errA != nil || errC != nil || !os.SameFile(a, c) {
		t.Errorf("duplicates not hard-linked: %v %v", errA, errC)
	}
	// index.json, two distinct contents, and the look for a signed
	// tree's tuf/timestamp.json (this one is not signed).
	if len(requests) != 4 {
		t.Errorf("%d requests, want 4: %v", len(requests), requests)
	}
	if err := local.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("Close left %d entries in %s", len(entries), parent)
	}

	if err := os.WriteFile(filepath.Join(src, "signatures/s/signature-1"), []byte("SIG"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := tree.Extract(t.Context(), remote, parent); err == nil || !strings.Contains(err.Error(), "signatures/s/signature-1") {
		t.Errorf("Extract of a tampered tree: %v, want an error naming the file", err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("a failed Extract left %d entries in %s", len(entries), parent)
	}
}
