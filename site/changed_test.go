package site_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/syncbuf"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
)

// answer is a response read whole, its body decoded when gzipped.
type answer struct {
	status        int
	etag, ctype   string
	length        int64
	body, decoded []byte
}

// ask sends one request on a new connection (so that each goes through
// the path asked for: the fast path hands a connection over for good).
func ask(t *testing.T, addr, method, query string, gz bool) answer {
	t.Helper()
	tr := &http.Transport{DisableCompression: true, DisableKeepAlives: true}
	req, err := http.NewRequest(method, "http://"+addr+"/graph?"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	res, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body (%d bytes announced): %v", method, query, res.ContentLength, err)
	}
	a := answer{status: res.StatusCode, etag: res.Header.Get("Etag"), ctype: res.Header.Get("Content-Type"), length: res.ContentLength, body: body, decoded: body}
	if method != http.MethodHead && int64(len(body)) != res.ContentLength {
		t.Fatalf("%s %s: %d bytes, Content-Length %d", method, query, len(body), res.ContentLength)
	}
	if res.Header.Get("Content-Encoding") == "gzip" && method != http.MethodHead {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if a.decoded, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// TestFileChangedInPlace: a file rewritten in place after it was checked
// (os.WriteFile truncates and writes the same inode, which the snapshot
// shares) is never sent as if it matched index.json: a JSON 500
// file_changed names the file; it is logged and counted, and the next
// generation heals it. The other encoding, another file (the plain file
// or its gzip copy), is answered as before. On both paths, with and
// without verify-ahead, for a change of size and one of content only.
func TestFileChangedInPlace(t *testing.T) {
	const (
		name  = "graph/amd64/fast-4.16/4.16.1.json"
		query = "channel=fast-4.16&arch=amd64&version=4.16.1"
	)
	for _, path := range []string{"fast", "net/http"} {
		for _, ahead := range []bool{true, false} {
			for _, changeCopy := range []bool{false, true} {
				for _, sameSize := range []bool{false, true} {
					tn := strings.Join([]string{path, map[bool]string{true: "verify-ahead", false: "on-request"}[ahead],
						map[bool]string{true: "gzip-copy", false: "plain"}[changeCopy],
						map[bool]string{true: "same-size", false: "other-size"}[sameSize]}, "/")
					t.Run(tn, func(t *testing.T) { testFileChanged(t, name, query, path == "fast", ahead, changeCopy, sameSize) })
				}
			}
		}
	}
}

func testFileChanged(t *testing.T, name, query string, fast, ahead, changeCopy, sameSize bool) {
	dir := filepath.Join(t.TempDir(), "tree")
	if err := renderDemo(dir, generator.RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	// A tree generated a while ago, so that its files are checked once
	// and then streamed (a file written within the last moments is read
	// again rather than trusted: see racyWindow).
	old := time.Now().Add(-time.Hour)
	read := func(name string) (string, []byte) {
		t.Helper()
		file := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.Chtimes(file, old, old); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return file, data
	}
	_, want := read(name)
	_, wantGz := read(name + ".gz")
	changedName := name
	if changeCopy {
		changedName = name + ".gz"
	}
	file, original := read(changedName)
	digest, gzDigest := manifest.SHA256(want), manifest.SHA256(wantGz)
	logs := &syncbuf.Buffer{}
	h := site.NewHandler(site.Options{VerifyAhead: ahead, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := h.Watch(ctx, dir, 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	plain, fastAddr, _ := servers(t, h)
	addr := plain
	if fast {
		addr = fastAddr
	}
	if ahead {
		waitFor(t, "the files to be checked ahead", func() bool { return h.Verified(digest) && h.Verified(gzDigest) })
	}
	okAnswer := func(a answer, gz bool) {
		t.Helper()
		wantTag := `"` + digest[:32] + `"`
		if gz {
			// The copy's own: an ETag per encoding.
			wantTag = `"` + gzDigest[:32] + `"`
		}
		if a.status != 200 || a.etag != wantTag || !bytes.Equal(a.decoded, want) {
			t.Fatalf("gzip %v: status %d, ETag %s, body %.80q; want 200, %s and the generated %d bytes", gz, a.status, a.etag, a.decoded, wantTag, len(want))
		}
	}
	// Checked and then streamed, in both encodings.
	for _, gz := range []bool{false, true, false, true} {
		okAnswer(ask(t, addr, "GET", query, gz), gz)
	}

	changed := []byte(`{"version":1,"nodes":[],"edges":[],"conditionalEdges":[],"x":0}` + "\n")
	if sameSize {
		changed = bytes.Clone(original)
		changed[len(changed)/2] ^= 1
	}
	if err := os.WriteFile(file, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, gz := range []bool{false, true} {
		for _, method := range []string{"GET", "HEAD"} {
			a := ask(t, addr, method, query, gz)
			if gz != changeCopy {
				// The other encoding's file is as generated.
				if method == "GET" {
					okAnswer(a, gz)
				} else if a.status != 200 {
					t.Fatalf("HEAD, gzip %v: %d", gz, a.status)
				}
				continue
			}
			if a.status != 500 || a.ctype != "application/json" {
				t.Fatalf("%s, gzip %v, after the change: %d %s %q; want a JSON 500", method, gz, a.status, a.ctype, a.body)
			}
			if method == "HEAD" {
				continue
			}
			kind, value := checkErrorBody(t, a.body)
			wantSize := "(its sha256 no longer matches index.json"
			if !sameSize {
				wantSize = fmt.Sprintf("(%d bytes, index.json says %d)", len(changed), len(original))
			}
			if kind != "file_changed" || !strings.HasPrefix(value, changedName+" changed on disk after it was generated "+wantSize) {
				t.Errorf("gzip %v: %s %q, want file_changed naming %s and %s", gz, kind, value, changedName, wantSize)
			}
		}
	}
	if n := metric(metricsText(t, h), "upgraph_files_changed_total"); n < 1 {
		t.Errorf("upgraph_files_changed_total = %g after the change", n)
	}
	if !strings.Contains(logs.String(), "changed on disk") || !strings.Contains(logs.String(), changedName) {
		t.Errorf("the change is not logged with the file's name:\n%s", logs)
	}

	// The next generation is whole again.
	if err := renderDemo(dir, generator.RenderOptions{GeneratedAt: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the next generation", func() bool { return h.Generation().ID == manifest.Digest(index) })
	for _, gz := range []bool{false, true} {
		okAnswer(ask(t, addr, "GET", query, gz), gz)
	}
}
