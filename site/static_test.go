package site_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/site"
)

// TestServeTree: in a tree with the viewer, the viewer, index.json and the
// graph files are served at their own paths, as a static host serves them;
// nothing else is.
func TestServeTree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tree")
	if err := renderDemo(dir, generator.RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	page := []byte("<!doctype html><title>viewer</title>")
	script := []byte("console.log(1)")
	if err := addFiles(dir, map[string][]byte{"index.html": page, "viewer/app.js": script, sigName: []byte(sigBody)}); err != nil {
		t.Fatal(err)
	}
	index := []byte(readFile(t, dir, "index.json"))
	graph := []byte(readFile(t, dir, "graph/amd64/fast-4.16/4.16.0.json"))
	h := newHandler(t, dir, site.Options{Prefixes: []string{"/custom"}})
	for _, tc := range []struct {
		method, target string
		status         int
		ctype          string
		body           []byte
	}{
		{"GET", "/", 200, "text/html; charset=utf-8", page},
		{"GET", "/?channel=fast-4.16&arch=amd64&from=4.16.0", 200, "text/html; charset=utf-8", page},
		{"GET", "/index.html", 200, "text/html; charset=utf-8", page},
		{"HEAD", "/", 200, "text/html; charset=utf-8", nil},
		{"GET", "/viewer/app.js", 200, "text/javascript; charset=utf-8", script},
		{"GET", "/index.json", 200, "application/json", index},
		{"GET", "/graph/amd64/fast-4.16/4.16.0.json", 200, "application/json", graph},
		{"POST", "/index.html", 405, "application/json", nil},
		{"GET", "/viewer/missing.js", 404, "", nil},
		{"GET", "/graph/amd64/nope.json", 404, "", nil},
		{"GET", "/" + sigName, 404, "", nil}, // only under the prefixes
		{"GET", "/schema/index.schema.json", 404, "", nil},
		{"GET", "/viewer/", 404, "", nil},
		{"GET", "/graph/", 404, "", nil},
	} {
		res, body := (&client{name: "recorder", h: h}).do(t, tc.method, tc.target, nil)
		if res.StatusCode != tc.status || (tc.ctype != "" && res.Header.Get("Content-Type") != tc.ctype) {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.target, res.StatusCode, res.Header.Get("Content-Type"), tc.status, tc.ctype)
			continue
		}
		if tc.body != nil && string(body) != string(tc.body) {
			t.Errorf("%s %s: body %.80q, want %.80q", tc.method, tc.target, body, tc.body)
		}
		if tc.status == 200 && res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: no X-Content-Type-Options: nosniff", tc.method, tc.target)
		}
	}
	// A graph file asked for compressed: gzip of its bytes, and only the
	// compressed bytes cached, as for /graph.
	cached := h.CachedBytes()
	res, body := (&client{name: "recorder", h: h}).do(t, "GET", "/graph/amd64/fast-4.16/4.16.0.json", hdr("Accept-Encoding", "gzip"))
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("gzip graph file: %d, Content-Encoding %q", res.StatusCode, res.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if plainBody, err := io.ReadAll(zr); err != nil || !bytes.Equal(plainBody, graph) {
		t.Errorf("gunzipped graph file differs (%v)", err)
	}
	if grown := h.CachedBytes() - cached; grown != int64(len(body)) {
		t.Errorf("the gzip answer of %d bytes grew the cache by %d bytes", len(body), grown)
	}
	cached = h.CachedBytes()
	if _, again := (&client{name: "recorder", h: h}).do(t, "GET", "/graph/amd64/fast-4.16/4.16.0.json", hdr("Accept-Encoding", "gzip")); !bytes.Equal(again, body) || h.CachedBytes() != cached {
		t.Errorf("second gzip answer differs or grew the cache from %d to %d bytes", cached, h.CachedBytes())
	}
	// A tree without the viewer serves none of them.
	plain := newHandler(t, "", site.Options{})
	for _, target := range []string{"/", "/index.json", "/graph/amd64/fast-4.16.json"} {
		if res, _ := get(t, plain, target, nil); res.StatusCode != http.StatusNotFound {
			t.Errorf("%s without a viewer: %d, want 404", target, res.StatusCode)
		}
	}
}
