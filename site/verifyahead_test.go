package site_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
)

// TestVerifyAhead: with VerifyAhead, every file of a new generation is
// checked in the background, except one whose bytes no longer match
// index.json, which is still refused when requested.
func TestVerifyAhead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tree")
	if err := renderDemo(dir, generator.RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	g0 := m.Graphs[0]
	bad := manifest.GraphPath(g0.Arch, g0.Channel)
	p := filepath.Join(dir, filepath.FromSlash(bad))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// Same size, so loading does not notice; the file may be a hard link,
	// so it is replaced rather than written through.
	data[len(data)/2] ^= 1
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHandler(t, dir, site.Options{VerifyAhead: true})

	badDigest := m.Files[bad].SHA256
	deadline := time.Now().Add(20 * time.Second)
	for name, f := range m.Files {
		// Graph files are streamed, so checked ahead; the others are
		// read, and checked, whenever they are not in memory.
		if f.SHA256 == badDigest || !strings.HasPrefix(name, "graph/") || strings.HasPrefix(name, manifest.EmptyGraphPath) {
			continue
		}
		for !h.Verified(f.SHA256) {
			if time.Now().After(deadline) {
				t.Fatalf("%s not verified ahead after 20 s", name)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	// The altered file was written just now: it is checked again once
	// its mtime is old enough to be trusted (racy), then reported.
	for metric(metricsText(t, h), "upgraph_verify_ahead_remaining_files") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("upgraph_verify_ahead_remaining_files not 0 after 20 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if h.Verified(badDigest) {
		t.Fatalf("%s verified, but its bytes do not match index.json", bad)
	}
	if n := metric(metricsText(t, h), "upgraph_files_changed_total"); n != 1 {
		t.Errorf("upgraph_files_changed_total = %g, want 1 (the altered file, once)", n)
	}
	res, body := get(t, h, "/graph?channel="+g0.Channel+"&arch="+g0.Arch, nil)
	if res.StatusCode < 500 {
		t.Errorf("request for the altered file: %d %q, want a server error", res.StatusCode, body)
	}
	if kind, value := checkErrorBody(t, body); kind != "file_changed" || !strings.Contains(value, bad) {
		t.Errorf("request for the altered file: %s %q, want file_changed naming %s", kind, value, bad)
	}
}
