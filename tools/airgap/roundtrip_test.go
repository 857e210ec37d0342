package airgap

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/blang/semver/v4"

	"github.com/upgraph/upgraph/internal/cvo"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/bundle"
	"github.com/upgraph/upgraph/tree/manifest"
)

// TestMirrorRoundTrip mirrors a generated tree into a bundle with a
// payload mirror, verifies the bundle, serves it with the real handler,
// and checks that every channel × arch × version gets the source tree's
// answer with payloads rewritten: as a document, and as the updates a
// cluster computes from it.
func TestMirrorRoundTrip(t *testing.T) {
	for _, in := range testSources() {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			srcDir := filepath.Join(work, "src")
			src, err := generateTree(in, srcDir)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(work, "mirror.tar.gz")
			start := time.Now()
			res, err := Mirror(t.Context(), Options{From: srcDir, Bundle: file, Payloads: rewrite})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("mirrored %d files into %d bytes (%d files, %d links) in %v",
				res.Manifest.Counts.Files, res.Bundle.Size, res.Bundle.Files, res.Bundle.Links, time.Since(start))
			if res.Rewrite.Rewritten != res.Manifest.Counts.Releases || len(res.Rewrite.Unmatched) > 0 || len(res.Rewrite.Tagged) > 0 {
				t.Errorf("rewrite: %+v, want all %d releases rewritten", res.Rewrite, res.Manifest.Counts.Releases)
			}
			sum, err := bundle.Verify(t.Context(), file, bundle.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if !sum.Checksummed || sum.SHA256 != res.Bundle.SHA256 {
				t.Errorf("verify: %+v, want the checksum file checked and sha256 %s", sum, res.Bundle.SHA256)
			}

			u, err := bundle.Unpack(t.Context(), file, work, bundle.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			defer u.Close()
			gen, err := site.Load(u.Dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer gen.Close()
			h := site.NewHandler(site.Options{})
			h.SetGeneration(gen)
			srv := httptest.NewServer(h)
			defer srv.Close()
			endpoint := srv.URL + "/api/upgrades_info/v1/graph"

			loop := time.Now()
			client := &cvo.Client{ID: "01234567-0123-4123-8123-0123456789ab"}
			checked := 0
			for _, g := range src.Graphs {
				want := rewriteDoc(t, readFile(t, srcDir, g.Path))
				sameDoc(t, get(t, endpoint, g.Channel, g.Arch, ""), want, g.Path)
				for _, v := range g.Versions {
					name := path.Join("graph", g.Arch, g.Channel, manifest.VersionFileName(v))
					want := rewriteDoc(t, readFile(t, srcDir, name))
					sameDoc(t, get(t, endpoint, g.Channel, g.Arch, v), want, name)
					cur := semver.MustParse(v)
					wantUpdates := cvo.Canonical(cvo.Updates(want, g.Channel, g.Arch, g.Arch, cur))
					gotUpdates := cvo.Canonical(client.GetUpdates(t.Context(), endpoint, g.Arch, g.Arch, g.Channel, cur))
					if !reflect.DeepEqual(gotUpdates, wantUpdates) {
						t.Errorf("%s: a cluster reads\n%v\nwant\n%v", name, gotUpdates, wantUpdates)
					}
					checked++
				}
			}
			t.Logf("%d channel graphs and %d per-version answers checked in %v", len(src.Graphs), checked, time.Since(loop))
			if checked == 0 {
				t.Fatal("no per-version graphs: the test checks nothing")
			}
			if in.name == "demo" {
				checkSignatures(t, srv.URL)
			}
		})
	}
}

// checkSignatures checks that the kept release's signatures are served
// as they were and the others are not mirrored.
func checkSignatures(t *testing.T, base string) {
	t.Helper()
	for _, tc := range []struct {
		path   string
		status int
		body   string
	}{
		{"sha256=" + demo4160amd64 + "/signature-1", 200, "sig one\x00\xff"},
		{"sha256=" + demo4160amd64 + "/signature-2", 200, "sig two"},
		{"sha256=" + unknownDigest + "/signature-1", 404, ""},
	} {
		resp, err := http.Get(base + "/api/upgrades_info/signatures/" + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || (tc.status == 200 && string(body) != tc.body) {
			t.Errorf("signature %s: %d %q, want %d %q", tc.path, resp.StatusCode, body, tc.status, tc.body)
		}
	}
}

func get(t *testing.T, endpoint, channel, arch, version string) []byte {
	t.Helper()
	q := url.Values{"channel": {channel}, "arch": {arch}}
	if version != "" {
		q.Set("version", version)
	}
	resp, err := http.Get(endpoint + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s %s %s: %d %s %v", channel, arch, version, resp.StatusCode, body, err)
	}
	return body
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rewriteDoc applies the test's payload mirror to a served graph.
func rewriteDoc(t *testing.T, data []byte) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, n := range doc["nodes"].([]any) {
		node := n.(map[string]any)
		node["payload"] = rewritten(t, node["payload"].(string))
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameDoc(t *testing.T, got, want []byte, name string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s served: %v", name, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: served\n%s\nwant\n%s", name, got, want)
	}
}
