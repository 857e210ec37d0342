package site_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/site/internal/catalogtest"
	"github.com/upgraph/upgraph/tree/manifest"
)

var (
	catalogOnce    sync.Once
	catalogDir     string
	catalogOracles map[string]*catalogtest.Oracle
	catalogErr     error
)

// catalogTree is the demo tree with the two catalogs of catalogtest,
// written once for the package.
func catalogTree(t testing.TB) (string, map[string]*catalogtest.Oracle) {
	t.Helper()
	catalogOnce.Do(func() {
		catalogDir = filepath.Join(filepath.Dir(treeDir), "catalogs")
		catalogOracles, catalogErr = catalogtest.Tree(context.Background(), catalogDir)
	})
	if catalogErr != nil {
		t.Fatal(catalogErr)
	}
	return catalogDir, catalogOracles
}

// catalogdQueries are the table of catalogd queries: every route, every
// parameter alone, in pairs and all three, empty and repeated values,
// values a catalog lacks, unknown catalogs and parameters.
var catalogdQueries = []struct{ catalog, endpoint, query string }{
	{"fixture", "all", ""},
	{"fixture", "all", "schema=olm.bundle"}, // /all has no parameters
	{"fixture", "metas", ""},
	{"fixture", "metas", "schema=olm.package"},
	{"fixture", "metas", "schema=olm.channel"},
	{"fixture", "metas", "schema=example.custom"},
	{"fixture", "metas", "package=alpha"},
	{"fixture", "metas", "package=beta"},
	{"fixture", "metas", "name=stable"},
	{"fixture", "metas", "name=beta"},
	{"fixture", "metas", "schema=olm.channel&package=alpha"},
	{"fixture", "metas", "package=alpha&schema=example.custom"},
	{"fixture", "metas", "schema=olm.package&package=alpha"}, // olm.package blobs have no package
	{"fixture", "metas", "schema=olm.deprecations&package=alpha"},
	{"fixture", "metas", "schema=olm.package&name=beta"},
	{"fixture", "metas", "schema=olm.package&name=nope"},
	{"fixture", "metas", "schema=olm.channel&name=stable"},
	{"fixture", "metas", "package=alpha&name=stable"},
	{"fixture", "metas", "schema=olm.channel&package=alpha&name=stable"},
	{"fixture", "metas", "schema=olm.package&package=&name=gamma"},
	{"fixture", "metas", "package=nope"},
	{"fixture", "metas", "schema=nope"},
	{"fixture", "metas", "schema=nope&package=alpha"},
	{"fixture", "metas", "name=nope"},
	{"fixture", "metas", "schema=&package=&name="},
	{"fixture", "metas", "schema"},
	{"fixture", "metas", "schema=&package=beta"},
	{"fixture", "metas", "schema=olm.package&schema=olm.bundle"}, // the first wins
	{"fixture", "metas", "package=Weird%2BPkg"},
	{"fixture", "metas", "package=Weird+Pkg"}, // '+' is a space
	{"fixture", "metas", "package=.."},
	{"fixture", "metas", "schema=olm.package;x&package=beta"}, // a pair with ';' is dropped
	{"fixture", "metas", "package=%zz&schema=olm.channel"},    // so is one with a bad escape
	{"fixture", "metas", "&&schema=olm.bundle&"},
	{"fixture", "metas", "foo=1"},
	{"fixture", "metas", "Schema=olm.package"},
	{"fixture", "metas", "=x"},
	{"nope", "metas", "schema=olm.package"},
	{"nope", "metas", "foo=1"}, // parameters are checked first
	{"nope", "all", ""},
	{"community", "all", ""},
	{"community", "metas", "schema=olm.package"},
	{"community", "metas", "schema=olm.bundle"},
	{"community", "metas", "package=infinispan"},
	{"community", "metas", "schema=olm.channel&package=infinispan"},
	{"community", "metas", "schema=olm.package&name=infinispan"},
	{"community", "metas", "package=infinispan&name=infinispan-operator.v2.4.0"},
	{"community", "metas", "schema=olm.channel&package=infinispan&name=stable"},
	{"community", "metas", "name=stable"},
}

// TestCatalogd answers catalogdQueries with catalogd's status and body
// (catalogtest.Oracle), Content-Type and headers, through a recorder and a
// real server.
func TestCatalogd(t *testing.T) {
	dir, oracles := catalogTree(t)
	h := site.CORS(newHandler(t, dir, site.Options{}))
	for _, c := range clients(t, h) {
		for _, q := range catalogdQueries {
			target := "/catalogs/" + q.catalog + "/api/v1/" + q.endpoint
			if q.query != "" {
				target += "?" + q.query
			}
			t.Run(c.name+target, func(t *testing.T) {
				want := catalogtest.Want(oracles, q.catalog, q.endpoint, q.query)
				res, body := c.do(t, "GET", target, nil)
				if res.StatusCode != want.Status || !bytes.Equal(body, want.Body) {
					t.Fatalf("%d %d bytes %.200q; catalogd answers %d %d bytes %.200q", res.StatusCode, len(body), body, want.Status, len(want.Body), want.Body)
				}
				vary := strings.Join(res.Header.Values("Vary"), ", ")
				if !strings.HasSuffix(vary, "Accept-Encoding") {
					t.Errorf("Vary %q", vary)
				}
				if want.Status != 200 {
					if ct := res.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
						t.Errorf("error Content-Type %q", ct)
					}
					return
				}
				if ct, cl := res.Header.Get("Content-Type"), res.Header.Get("Content-Length"); ct != site.MediaJSONL || cl != itoa(len(body)) {
					t.Errorf("Content-Type %q, Content-Length %q", ct, cl)
				}
				lm, err := http.ParseTime(res.Header.Get("Last-Modified"))
				if err != nil || time.Since(lm) > time.Hour {
					t.Errorf("Last-Modified %q", res.Header.Get("Last-Modified"))
				}
				if res.Header.Get("Cache-Control") != site.DefaultCacheControl || res.Header.Get("ETag") == "" {
					t.Errorf("Cache-Control %q, ETag %q", res.Header.Get("Cache-Control"), res.Header.Get("ETag"))
				}
				if ar := res.Header.Get("Accept-Ranges"); (ar == "bytes") != (q.endpoint == "all") {
					t.Errorf("Accept-Ranges %q", ar)
				}
			})
		}
	}
}

// TestCatalogdErrors: methods, catalog names and paths, with catalogd's
// bodies.
func TestCatalogdErrors(t *testing.T) {
	dir, _ := catalogTree(t)
	h := site.CORS(newHandler(t, dir, site.Options{}))
	long := strings.Repeat("a", 254)
	for _, tc := range []struct {
		method, target string
		status         int
		body           string
	}{
		{"POST", "/catalogs/fixture/api/v1/all", 405, "Method Not Allowed\n"},
		{"DELETE", "/catalogs/nope/api/v1/metas?foo=1", 405, "Method Not Allowed\n"},
		{"OPTIONS", "/catalogs/fixture/api/v1/metas", 405, "Method Not Allowed\n"},
		{"GET", "/catalogs/Fixture/api/v1/all", 400, "invalid catalog name: " + site.CatalogNameInvalid + "\n"},
		{"GET", "/catalogs/-x/api/v1/metas?foo=1", 400, "invalid catalog name: " + site.CatalogNameInvalid + "\n"},
		{"GET", "/catalogs/" + long + "/api/v1/all", 400, "invalid catalog name: " + site.CatalogNameTooLong + "\n"},
		{"GET", "/catalogs/" + long + "-/api/v1/all", 400, "invalid catalog name: " + site.CatalogNameTooLong + "; " + site.CatalogNameInvalid + "\n"},
		{"GET", "/catalogs/a.b/api/v1/all", 404, "404 Not Found\n"},
		{"GET", "/catalogs/fix%74ure/api/v1/metas?schema=olm.package", 200, ""},
		{"GET", "/catalogs/fixture/api/v1/other", 404, ""},
		{"GET", "/catalogs/fixture/api/v1/all/", 404, ""},
		{"GET", "/catalogs/fixture", 404, ""},
		{"GET", "/catalogs/", 404, ""},
	} {
		res, body := (&client{name: "recorder", h: h}).do(t, tc.method, tc.target, nil)
		if res.StatusCode != tc.status || (tc.body != "" || tc.status != 200) && string(body) != tc.body {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.target, res.StatusCode, body, tc.status, tc.body)
		}
	}
	// A CORS preflight is answered on these paths too.
	res, _ := (&client{name: "recorder", h: h}).do(t, "OPTIONS", "/catalogs/fixture/api/v1/all", hdr("Origin", "example.com", "Access-Control-Request-Method", "GET"))
	if res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != "example.com" {
		t.Errorf("preflight: %d", res.StatusCode)
	}
}

// TestCatalogdConditional: HEAD, Last-Modified and If-Modified-Since (as
// catalogd), If-Unmodified-Since, the ETag, ranges on /all only, gzip.
func TestCatalogdConditional(t *testing.T) {
	dir, oracles := catalogTree(t)
	h := site.CORS(newHandler(t, dir, site.Options{}))
	for _, c := range clients(t, h) {
		for _, target := range []string{
			"/catalogs/fixture/api/v1/all",
			"/catalogs/community/api/v1/all",
			"/catalogs/fixture/api/v1/metas?package=alpha",
			"/catalogs/community/api/v1/metas?schema=olm.bundle",
			"/catalogs/community/api/v1/metas?name=stable",
			"/catalogs/fixture/api/v1/metas?package=nope",
		} {
			t.Run(c.name+target, func(t *testing.T) {
				get, body := c.do(t, "GET", target, nil)
				head, headBody := c.do(t, "HEAD", target, nil)
				if get.StatusCode != 200 || head.StatusCode != 200 || len(headBody) != 0 {
					t.Fatalf("GET %d, HEAD %d with %d bytes", get.StatusCode, head.StatusCode, len(headBody))
				}
				for _, k := range []string{"Content-Type", "Content-Length", "Last-Modified", "ETag", "Cache-Control", "Vary", "Accept-Ranges"} {
					if g, hd := get.Header.Values(k), head.Header.Values(k); strings.Join(g, "|") != strings.Join(hd, "|") {
						t.Errorf("%s: GET %q, HEAD %q", k, g, hd)
					}
				}
				lm := get.Header.Get("Last-Modified")
				mod, _ := http.ParseTime(lm)
				for _, tc := range []struct {
					header []string
					status int
				}{
					{[]string{"If-Modified-Since", lm}, 304},
					{[]string{"If-Modified-Since", mod.Add(time.Hour).Format(http.TimeFormat)}, 304},
					{[]string{"If-Modified-Since", mod.Add(-time.Second).Format(http.TimeFormat)}, 200},
					{[]string{"If-Modified-Since", "yesterday"}, 200},
					{[]string{"If-Modified-Since", mod.Format(time.RFC850)}, 304},
					{[]string{"If-None-Match", get.Header.Get("ETag")}, 304},
					{[]string{"If-None-Match", `"other"`, "If-Modified-Since", lm}, 200},
					{[]string{"If-None-Match", "*"}, 304},
					{[]string{"If-Unmodified-Since", lm}, 200},
					{[]string{"If-Unmodified-Since", mod.Add(-time.Second).Format(http.TimeFormat)}, 412},
					{[]string{"If-Match", `"other"`}, 412},
					{[]string{"If-Match", get.Header.Get("ETag")}, 200},
				} {
					for _, method := range []string{"GET", "HEAD"} {
						res, b := c.do(t, method, target, hdr(tc.header...))
						if res.StatusCode != tc.status || (tc.status != 200 || method == "HEAD") && len(b) != 0 ||
							tc.status == 200 && method == "GET" && !bytes.Equal(b, body) {
							t.Errorf("%s %q: %d with %d bytes, want %d", method, tc.header, res.StatusCode, len(b), tc.status)
						}
					}
				}
				// A range: /all only, as catalogd (http.ServeContent).
				res, b := c.do(t, "GET", target, hdr("Range", "bytes=0-9"))
				if strings.Contains(target, "/all") && len(body) > 10 {
					if res.StatusCode != 206 || !bytes.Equal(b, body[:10]) || res.Header.Get("Content-Range") == "" {
						t.Errorf("range: %d %q", res.StatusCode, b)
					}
				} else if res.StatusCode != 200 || !bytes.Equal(b, body) {
					t.Errorf("range on metas: %d with %d bytes", res.StatusCode, len(b))
				}
				// gzip from 1024 bytes, as catalogd's middleware.
				res, b = c.do(t, "GET", target, hdr("Accept-Encoding", "gzip"))
				gz := res.Header.Get("Content-Encoding") == "gzip"
				if gz != (len(body) >= 1024) || res.Header.Get("Content-Length") != itoa(len(b)) || gz && res.Header.Get("Accept-Ranges") != "" {
					t.Fatalf("gzip: Content-Encoding %q for %d bytes", res.Header.Get("Content-Encoding"), len(body))
				}
				if gz {
					zr, err := gzip.NewReader(bytes.NewReader(b))
					if err != nil {
						t.Fatal(err)
					}
					if plain, err := io.ReadAll(zr); err != nil || !bytes.Equal(plain, body) {
						t.Errorf("gunzipped body differs (%v)", err)
					}
					if again, _ := c.do(t, "GET", target, hdr("Accept-Encoding", "gzip", "If-None-Match", res.Header.Get("ETag"))); again.StatusCode != 304 {
						t.Errorf("gzip revalidation: %d", again.StatusCode)
					}
				}
			})
		}
	}
	_ = oracles
}

// TestOperatorsFiles: a catalog's other files are plain GETs, from a tree
// without the viewer too.
func TestOperatorsFiles(t *testing.T) {
	dir, _ := catalogTree(t)
	h := newHandler(t, dir, site.Options{})
	for _, tc := range []struct {
		method, target string
		status         int
		ctype          string
	}{
		{"GET", "/operators/community/catalog.json", 200, "application/json"},
		{"HEAD", "/operators/community/catalog.json", 200, "application/json"},
		{"GET", "/operators/community/graph/infinispan.json", 200, "application/json"},
		{"GET", "/operators/fixture/metas/package/alpha.jsonl", 200, site.MediaJSONL},
		{"GET", "/operators/fixture/all.jsonl", 200, site.MediaJSONL},
		{"POST", "/operators/fixture/all.jsonl", 405, "application/json"},
		{"GET", "/operators/fixture/nope.json", 404, ""},
		{"GET", "/operators/", 404, ""},
		{"GET", "/operators/fixture/../index.json", 404, ""},
	} {
		res, body := (&client{name: "recorder", h: h}).do(t, tc.method, tc.target, nil)
		if res.StatusCode != tc.status || res.Header.Get("Content-Type") != tc.ctype {
			t.Errorf("%s %s: %d %q, want %d %q", tc.method, tc.target, res.StatusCode, res.Header.Get("Content-Type"), tc.status, tc.ctype)
		}
		if tc.status == 200 && tc.method == "GET" && string(body) != readFile(t, dir, strings.TrimPrefix(tc.target, "/")) {
			t.Errorf("%s: not the file", tc.target)
		}
	}
}

// TestCatalogdBeforeNameFiles: a tree written before the name= files
// (no metas/name/, metas/schema/S/N.jsonl for olm.package only) answers
// name= queries by filtering the file of the other parameters, as
// catalogd answers them.
func TestCatalogdBeforeNameFiles(t *testing.T) {
	dir, oracles := catalogTree(t)
	old := filepath.Join(t.TempDir(), "tree")
	if err := os.CopyFS(old, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Read(old)
	if err != nil {
		t.Fatal(err)
	}
	dropped := 0
	for name := range m.Files {
		if nameFile(name) {
			delete(m.Files, name)
			if err := os.Remove(filepath.Join(old, filepath.FromSlash(name))); err != nil {
				t.Fatal(err)
			}
			dropped++
		}
	}
	index, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(old, manifest.FileName), index, 0o644); err != nil {
		t.Fatal(err)
	}
	h := site.CORS(newHandler(t, old, site.Options{}))
	named := 0
	for _, q := range catalogdQueries {
		target := "/catalogs/" + q.catalog + "/api/v1/" + q.endpoint + "?" + q.query
		want := catalogtest.Want(oracles, q.catalog, q.endpoint, q.query)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		if rec.Code != want.Status || !bytes.Equal(rec.Body.Bytes(), want.Body) {
			t.Errorf("%s: %d %.200q; catalogd answers %d %.200q", target, rec.Code, rec.Body.Bytes(), want.Status, want.Body)
		}
		if strings.Contains(q.query, "name=") && len(want.Body) > 0 {
			named++
		}
	}
	if dropped < 1000 || named < 5 {
		t.Errorf("vacuous: %d name files dropped, %d non-empty name= queries", dropped, named)
	}
}

// nameFile reports whether a tree file is one of the name= files
// (catalog/metas: metas/name/N, metas/schema/S/N, metas/package/P/name/N,
// metas/package/P/schema/S/N) but the olm.package ones trees had before.
func nameFile(name string) bool {
	rest, ok := strings.CutPrefix(name, "operators/")
	if !ok {
		return false
	}
	_, file, _ := strings.Cut(rest, "/")
	parts := strings.Split(file, "/")
	switch {
	case len(parts) < 3 || parts[0] != "metas":
		return false
	case parts[1] == "name":
		return true
	case parts[1] == "schema":
		return len(parts) == 4 && parts[2] != "olm.package"
	}
	return parts[1] == "package" && len(parts) > 4
}
