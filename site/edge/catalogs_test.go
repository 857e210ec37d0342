package edge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
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

// catalogTree is the demo tree (without the viewer) with catalogtest's
// two catalogs, written once for the package.
func catalogTree(t testing.TB) (string, map[string]*catalogtest.Oracle) {
	t.Helper()
	catalogOnce.Do(func() {
		catalogDir = filepath.Join(testRoot, "catalogs")
		catalogOracles, catalogErr = catalogtest.Tree(context.Background(), catalogDir)
	})
	if catalogErr != nil {
		t.Fatal(catalogErr)
	}
	return catalogDir, catalogOracles
}

const (
	fixtureAPI   = "/catalogs/" + catalogtest.Fixture + "/api/v1/"
	communityAPI = "/catalogs/" + catalogtest.Community + "/api/v1/"
)

// catalogRequests are catalogd queries (docs/operators.md, "Serving"):
// all, every parameter alone, pairs, all three, empty and repeated
// values, unknown catalogs, packages, schemas and parameters, HEAD,
// ranges, CORS, methods and catalog names.
var catalogRequests = []request{
	{name: "all", target: fixtureAPI + "all"},
	{name: "all HEAD", method: http.MethodHead, target: fixtureAPI + "all"},
	{name: "all ignores the query", target: fixtureAPI + "all?schema=olm.bundle&foo=1"},
	{name: "all range", target: fixtureAPI + "all", header: []string{"Range: bytes=0-9"}},
	{name: "all origin", target: fixtureAPI + "all", header: []string{origin}},
	{name: "all community", target: communityAPI + "all"},
	{name: "metas", target: fixtureAPI + "metas"},
	{name: "metas HEAD", method: http.MethodHead, target: fixtureAPI + "metas?package=alpha"},
	{name: "metas range ignored", target: fixtureAPI + "metas?package=alpha", header: []string{"Range: bytes=0-9"}},
	{name: "schema", target: fixtureAPI + "metas?schema=olm.package"},
	{name: "schema channel", target: fixtureAPI + "metas?schema=olm.channel"},
	{name: "schema other", target: fixtureAPI + "metas?schema=example.custom"},
	{name: "schema community", target: communityAPI + "metas?schema=olm.bundle"},
	{name: "package", target: fixtureAPI + "metas?package=alpha"},
	{name: "package beta", target: fixtureAPI + "metas?package=beta", header: []string{origin}},
	{name: "package dot-dot", target: fixtureAPI + "metas?package=.."},
	{name: "package community", target: communityAPI + "metas?package=infinispan"},
	{name: "schema and package", target: fixtureAPI + "metas?schema=olm.channel&package=alpha"},
	{name: "package and schema", target: fixtureAPI + "metas?package=alpha&schema=example.custom"},
	{name: "schema and package, empty", target: fixtureAPI + "metas?schema=olm.package&package=alpha"},
	{name: "schema and package, no deprecations", target: fixtureAPI + "metas?schema=olm.deprecations&package=alpha"},
	{name: "schema and package community", target: communityAPI + "metas?schema=olm.channel&package=infinispan"},
	{name: "package metadata", target: fixtureAPI + "metas?schema=olm.package&name=beta"},
	{name: "package metadata community", target: communityAPI + "metas?schema=olm.package&name=infinispan"},
	{name: "package metadata, empty package", target: fixtureAPI + "metas?schema=olm.package&package=&name=gamma"},
	{name: "empty values", target: fixtureAPI + "metas?schema=&package=&name="},
	{name: "bare key", target: fixtureAPI + "metas?schema"},
	{name: "empty schema", target: fixtureAPI + "metas?schema=&package=beta"},
	{name: "repeated schema", target: fixtureAPI + "metas?schema=olm.package&schema=olm.bundle"},
	{name: "empty pairs", target: fixtureAPI + "metas?&&schema=olm.bundle&"},
	{name: "unknown package", target: fixtureAPI + "metas?package=nope"},
	{name: "unknown schema", target: fixtureAPI + "metas?schema=nope"},
	{name: "unknown schema, known package", target: fixtureAPI + "metas?schema=nope&package=alpha"},
	{name: "unknown package metadata", target: fixtureAPI + "metas?schema=olm.package&name=nope"},

	// name= alone and with schema, package or both.
	{name: "name", target: fixtureAPI + "metas?name=stable"},
	{name: "schema and name", target: fixtureAPI + "metas?schema=olm.channel&name=stable"},
	{name: "package and name", target: fixtureAPI + "metas?package=alpha&name=stable"},
	{name: "all three", target: fixtureAPI + "metas?schema=olm.channel&package=alpha&name=stable"},
	{name: "all three community", target: communityAPI + "metas?schema=olm.channel&package=infinispan&name=stable"},
	{name: "upper-case name", target: communityAPI + "metas?name=Stable"},
	{name: "escaped upper-case name", target: communityAPI + "metas?schema=olm.channel&name=%53table"},
	{name: "escaped keys and values", target: communityAPI + "metas?%73chema=olm%2Echannel&%6eame=st%61ble&package=infinispan"},
	{name: "dropped pair, then the value", target: communityAPI + "metas?name=%zz&name=stable&schema=olm.channel;x"},
	{name: "first value wins", target: communityAPI + "metas?name=stable&name=alpha"},
	{name: "empty first value", target: communityAPI + "metas?name=&name=stable"},
	{name: "raw non-ASCII value", target: fixtureAPI + "metas?package=caf\xc3\xa9&name=x"},
	{name: "leading escaped dot", target: fixtureAPI + "metas?package=%2E.&schema=example.custom"},
	{name: "many changed bytes", target: fixtureAPI + "metas?name=" + strings.Repeat("A_", 40)},
	{name: "plus and escaped plus", target: fixtureAPI + "metas?package=Weird%2BPkg&name=a+b"},
	// Queries catalogd decodes: escapes, '+', ';', malformed escapes.
	{name: "escaped value", target: fixtureAPI + "metas?package=Weird%2BPkg"},
	{name: "plus value", target: fixtureAPI + "metas?package=Weird+Pkg"},
	{name: "semicolon pair", target: fixtureAPI + "metas?schema=olm.package;x&package=beta"},
	{name: "malformed escape", target: fixtureAPI + "metas?package=%zz&schema=olm.channel"},
	{name: "upper-case value", target: fixtureAPI + "metas?schema=OLM.package"},
	{name: "escaped key", target: fixtureAPI + "metas?%73chema=olm.package"},
	{name: "non-ASCII value", target: fixtureAPI + "metas?package=caf%C3%A9"},
	{name: "long value", target: fixtureAPI + "metas?package=" + strings.Repeat("a", 300)},
	{name: "long name", target: fixtureAPI + "metas?name=" + strings.Repeat("A", 101)},
	{name: "long name in package", target: fixtureAPI + "metas?schema=example.custom&package=alpha&name=" + strings.Repeat("%41", 101)},
	{name: "long unknown name", target: fixtureAPI + "metas?name=" + strings.Repeat("A", 250)},
	{name: "name ending in .jsonl", target: fixtureAPI + "metas?name=beta.jsonl"},
	{name: "name ending in escaped .jsonl", target: fixtureAPI + "metas?package=alpha&name=beta%2Ejsonl"},
	{name: "leading dot", target: fixtureAPI + "metas?package=.x"},

	// Errors.
	{name: "unknown parameter", target: fixtureAPI + "metas?foo=1", header: []string{origin}},
	{name: "parameter case", target: fixtureAPI + "metas?Schema=olm.package"},
	{name: "empty key", target: fixtureAPI + "metas?=x"},
	{name: "unknown parameter among known", target: fixtureAPI + "metas?schema=olm.package&id=1"},
	{name: "unknown catalog", target: "/catalogs/nope/api/v1/metas?schema=olm.package"},
	{name: "unknown catalog, unknown parameter", target: "/catalogs/nope/api/v1/metas?foo=1"},
	{name: "unknown catalog all", target: "/catalogs/nope/api/v1/all"},
	{name: "subdomain catalog", target: "/catalogs/a.b/api/v1/all"},
	{name: "invalid catalog", target: "/catalogs/Fixture/api/v1/all"},
	{name: "invalid catalog metas", target: "/catalogs/-x/api/v1/metas?foo=1"},
	{name: "long catalog", target: "/catalogs/" + strings.Repeat("a", 254) + "/api/v1/all"},
	{name: "long invalid catalog", target: "/catalogs/" + strings.Repeat("a", 254) + "-/api/v1/metas"},
	{name: "POST", method: http.MethodPost, target: fixtureAPI + "all", header: []string{origin}},
	{name: "DELETE unknown", method: http.MethodDelete, target: "/catalogs/nope/api/v1/metas?foo=1"},
	{name: "OPTIONS", method: http.MethodOptions, target: fixtureAPI + "metas"},
	{name: "preflight", method: http.MethodOptions, target: fixtureAPI + "metas", header: []string{origin, acrmGET}},
	{name: "preflight PUT", method: http.MethodOptions, target: fixtureAPI + "all", header: []string{origin, "Access-Control-Request-Method: PUT"}},
	{name: "other endpoint", target: fixtureAPI + "graphql"},
	{name: "trailing slash", target: fixtureAPI + "all/"},
	{name: "catalogs", target: "/catalogs/"},

	// A catalog's files at their own paths.
	{name: "summary", target: "/operators/community/catalog.json", header: []string{origin}},
	{name: "channel graph", target: "/operators/community/graph/infinispan.json"},
	{name: "metas file", target: "/operators/fixture/metas/package/alpha.jsonl"},
	{name: "missing file", target: "/operators/fixture/nope.json"},
	{name: "file POST", method: http.MethodPost, target: "/operators/fixture/all.jsonl"},
}

// catalogHeaders are compared as comparedHeaders, with Last-Modified: the
// Go handler and nginx both send the file's modification time.
var catalogHeaders = append(slices.Clone(comparedHeaders), "Last-Modified")

// TestCatalogNginxMatchesGoHandler compares catalogRequests, and the
// query of every precomputed file of both catalogs, between nginx and the
// Go handler: status, headers and body; the Go handler's bodies are
// catalogd's (catalogtest.Oracle).
func TestCatalogNginxMatchesGoHandler(t *testing.T) {
	dir, oracles := catalogTree(t)
	ngx, goURL := startNginx(t, dir), startGo(t, dir)
	reqs := append(slices.Clone(catalogRequests), precomputedRequests(t, dir, catalogtest.Fixture)...)
	statuses := map[int]int{}
	for _, rq := range reqs {
		t.Run(rq.name, func(t *testing.T) {
			method := cmpOr(rq.method, http.MethodGet)
			want := fetch(t, noGzip, method, goURL+rq.target, rq.header...)
			got := fetch(t, noGzip, method, ngx+rq.target, rq.header...)
			statuses[want.status]++
			if ans, ok := oracleAnswer(oracles, rq.target); ok && method == http.MethodGet && len(rq.header) == 0 {
				if want.status != ans.Status || !bytes.Equal(want.body, ans.Body) {
					t.Errorf("Go handler %d %.100q; catalogd %d %.100q", want.status, want.body, ans.Status, ans.Body)
				}
			}
			if got.status != want.status {
				t.Errorf("status: nginx %d, Go %d", got.status, want.status)
			}
			for _, h := range catalogHeaders {
				switch {
				case h == "Content-Length" && headNotFound(method, want):
					continue // documented: nginx sends "Content-Length: 0"
				case h == "Accept-Ranges" && want.status == http.StatusPartialContent:
					continue // documented: nginx sends none with 206
				case h == "Last-Modified" && strings.HasPrefix(rq.target, "/operators/"):
					continue // documented: as for the tree's other files, nginx sends one
				}
				if g, w := got.header.Values(h), want.header.Values(h); strings.Join(g, "\n") != strings.Join(w, "\n") {
					t.Errorf("%s: nginx %q, Go %q", h, g, w)
				}
			}
			if !bytes.Equal(got.body, want.body) {
				t.Errorf("body:\nnginx %.300q\nGo    %.300q", got.body, want.body)
			}
		})
	}
	t.Logf("%d requests; statuses of the Go handler: %v", len(reqs), statuses)
	if statuses[200] < 100 || statuses[400] == 0 || statuses[404] == 0 || statuses[405] == 0 {
		t.Errorf("vacuous comparison: %v", statuses)
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// oracleAnswer is catalogd's answer to a GET of target, for the routes of
// the two catalogs and unknown ones with valid names.
func oracleAnswer(oracles map[string]*catalogtest.Oracle, target string) (catalogtest.Answer, bool) {
	p, query, _ := strings.Cut(target, "?")
	rest, ok := strings.CutPrefix(p, "/catalogs/")
	if !ok {
		return catalogtest.Answer{}, false
	}
	cat, endpoint, _ := strings.Cut(rest, "/api/v1/")
	if (endpoint != "all" && endpoint != "metas") || cat != "nope" && oracles[cat] == nil {
		return catalogtest.Answer{}, false
	}
	return catalogtest.Want(oracles, cat, endpoint, query), true
}

// precomputedRequests asks the query of every metas file of catalog cat
// (decoding the file names back into values); TestCatalogEdgesExhaustive
// asks every query of both catalogs.
func precomputedRequests(t testing.TB, dir, cat string) []request {
	m, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []request
	for name := range m.Files {
		rest, ok := strings.CutPrefix(name, "operators/")
		if !ok {
			continue
		}
		c, file, _ := strings.Cut(rest, "/")
		q, ok := queryOf(file)
		if !ok || c != cat {
			continue
		}
		out = append(out, request{name: "file " + name, target: "/catalogs/" + c + "/api/v1/metas?" + q})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// queryOf is the metas query a file answers, for files of plain names.
func queryOf(file string) (string, bool) {
	file, ok := strings.CutSuffix(file, ".jsonl")
	if !ok || strings.ContainsAny(file, "~!_") {
		return "", false
	}
	parts := strings.Split(file, "/")
	if parts[0] != "metas" {
		return "", false
	}
	switch parts = parts[1:]; {
	case len(parts) == 2 && parts[0] == "schema":
		return "schema=" + parts[1], true
	case len(parts) == 2 && parts[0] == "package":
		return "package=" + parts[1], true
	case len(parts) == 2 && parts[0] == "name":
		return "name=" + parts[1], true
	case len(parts) == 3 && parts[0] == "package":
		return "schema=" + parts[2] + "&package=" + parts[1], true
	case len(parts) == 3 && parts[0] == "schema":
		return "schema=" + parts[1] + "&name=" + parts[2], true
	case len(parts) == 4 && parts[0] == "package" && parts[2] == "name":
		return "package=" + parts[1] + "&name=" + parts[3], true
	case len(parts) == 5 && parts[0] == "package" && parts[2] == "schema":
		return "schema=" + parts[3] + "&package=" + parts[1] + "&name=" + parts[4], true
	}
	return "", false
}

// TestCatalogNginxConditional: Last-Modified is the file's on both, and
// If-Modified-Since, If-Unmodified-Since and each server's own ETag give
// the same statuses.
func TestCatalogNginxConditional(t *testing.T) {
	dir, _ := catalogTree(t)
	ngx, goURL := startNginx(t, dir), startGo(t, dir)
	for _, target := range []string{fixtureAPI + "all", fixtureAPI + "metas?package=alpha", fixtureAPI + "metas?package=nope",
		communityAPI + "metas?schema=olm.package", communityAPI + "metas", communityAPI + "metas?name=stable",
		communityAPI + "metas?schema=olm.channel&package=infinispan&name=Stable"} {
		first := fetch(t, noGzip, http.MethodGet, goURL+target)
		lm := first.header.Get("Last-Modified")
		mod, err := http.ParseTime(lm)
		if err != nil {
			t.Fatalf("%s: Last-Modified %q", target, lm)
		}
		for name, base := range map[string]string{"nginx": ngx, "go": goURL} {
			etag := fetch(t, noGzip, http.MethodGet, base+target).header.Get("ETag")
			for _, tc := range []struct {
				header string
				status int
			}{
				{"If-Modified-Since: " + lm, 304},
				{"If-Modified-Since: " + mod.Add(time.Hour).Format(http.TimeFormat), 304},
				{"If-Modified-Since: " + mod.Add(-time.Second).Format(http.TimeFormat), 200},
				{"If-None-Match: " + etag, 304},
				{"If-Unmodified-Since: " + mod.Add(-time.Second).Format(http.TimeFormat), 412},
				{"If-Unmodified-Since: " + lm, 200},
			} {
				for _, method := range []string{http.MethodGet, http.MethodHead} {
					res := fetch(t, noGzip, method, base+target, tc.header)
					if res.status != tc.status || tc.status == 304 && len(res.body) != 0 {
						t.Errorf("%s %s %s %s: %d, want %d", name, method, target, tc.header, res.status, tc.status)
					}
				}
			}
		}
	}
}

// TestCatalogNginxGzip: both compress answers of 1024 bytes and more (as
// catalogd's middleware) to the same content, and not smaller ones.
func TestCatalogNginxGzip(t *testing.T) {
	dir, _ := catalogTree(t)
	ngx, goURL := startNginx(t, dir), startGo(t, dir)
	for _, target := range []string{fixtureAPI + "all", communityAPI + "metas?package=infinispan", fixtureAPI + "metas?schema=olm.deprecations", fixtureAPI + "metas?package=nope",
		communityAPI + "metas?name=stable", communityAPI + "metas?package=infinispan&name=infinispan-operator.v2.4.0"} {
		want := fetch(t, noGzip, http.MethodGet, goURL+target, "Accept-Encoding: gzip")
		got := fetch(t, noGzip, http.MethodGet, ngx+target, "Accept-Encoding: gzip")
		gz := want.header.Get("Content-Encoding") == "gzip"
		if got.header.Get("Content-Encoding") != want.header.Get("Content-Encoding") {
			t.Errorf("%s: Content-Encoding nginx %q, Go %q", target, got.header.Get("Content-Encoding"), want.header.Get("Content-Encoding"))
			continue
		}
		g, w := got.body, want.body
		if gz {
			g, w = gunzip(t, g), gunzip(t, w)
		}
		if !bytes.Equal(g, w) {
			t.Errorf("%s: bodies differ", target)
		}
	}
}

// cfCatalogMissing are the requests for which the catalogs function names
// an object the tree does not have (docs/operators.md): values the catalog
// lacks, which catalogd answers with nothing, and the custom error
// response answers with metas/empty.jsonl.
var cfCatalogMissing = map[string]bool{
	"unknown package": true, "unknown schema": true, "unknown schema, known package": true, "unknown package metadata": true,
	"plus value": true, "upper-case value": true, "non-ASCII value": true, "leading dot": true, "long unknown name": true,
	"raw non-ASCII value": true, "many changed bytes": true, "plus and escaped plus": true,
	// Other paths reach S3 as they are.
	"other endpoint": true, "trailing slash": true, "catalogs": true, "missing file": true,
}

// catalogFunction writes the catalogs function for the two catalogs of
// catalogTree and returns its path.
func catalogFunction(t testing.TB) string {
	t.Helper()
	fn, err := CloudFrontCatalogFunction([]string{catalogtest.Fixture, catalogtest.Community})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cloudfront_catalogs.js")
	if err := os.WriteFile(path, []byte(fn), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCloudFrontCatalogs runs the catalogs function on catalogRequests and
// the query of every precomputed file, serves its rewritten URIs from the
// tree as S3 would, and compares with the Go handler.
func TestCloudFrontCatalogs(t *testing.T) {
	dir, _ := catalogTree(t)
	goURL := startGo(t, dir)
	var reqs []request
	var events []cfEvent
	for _, rq := range append(slices.Clone(catalogRequests), precomputedRequests(t, dir, catalogtest.Fixture)...) {
		method := cmpOr(rq.method, http.MethodGet)
		if method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions {
			continue // the cache behaviour lets only these reach the function
		}
		reqs = append(reqs, rq)
		events = append(events, newEvent(method, rq.target, rq.header...))
	}
	rewritten, missing := 0, 0
	for i, res := range runCloudFrontFile(t, catalogFunction(t), events) {
		rq, method := reqs[i], events[i].Request.Method
		t.Run(rq.name, func(t *testing.T) {
			want := fetch(t, noGzip, method, goURL+rq.target, rq.header...)
			if res.StatusCode != 0 { // a synthetic response
				var body string
				if res.Body != nil {
					body = res.Body.Data
				}
				if res.StatusCode != want.status || body != string(want.body) {
					t.Errorf("CloudFront %d %q; Go %d %q", res.StatusCode, body, want.status, want.body)
				}
				for _, h := range []string{"Content-Type", "Vary", "Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "X-Content-Type-Options"} {
					if got := res.Headers[strings.ToLower(h)].Value; got != strings.Join(want.header.Values(h), ", ") {
						t.Errorf("%s: CloudFront %q, Go %q", h, got, want.header.Values(h))
					}
				}
				return
			}
			if strings.HasPrefix(rq.target, "/catalogs/") && len(res.Querystring) != 0 {
				t.Errorf("query string kept: %v", res.Querystring)
			}
			object := strings.TrimPrefix(res.URI, "/")
			served, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(object)))
			if err != nil {
				missing++
				if !cfCatalogMissing[rq.name] {
					t.Errorf("CloudFront names %s, which the tree lacks; Go answers %d %.100q", object, want.status, want.body)
				}
				if strings.HasPrefix(rq.target, "/catalogs/") && strings.HasPrefix(res.URI, "/operators/") && (want.status != 200 || len(want.body) != 0) {
					t.Errorf("CloudFront names %s, which the tree lacks (the empty answer); Go answers %d %.100q", object, want.status, want.body)
				}
				return
			}
			rewritten++
			if cfCatalogMissing[rq.name] {
				t.Errorf("documented as missing, but %s exists", object)
			}
			if method == http.MethodHead {
				served = nil
			}
			if strings.Contains(strings.Join(rq.header, "\n"), "Range:") {
				return // S3 answers the range
			}
			if want.status != 200 || !bytes.Equal(served, want.body) {
				t.Errorf("CloudFront serves %s (%d bytes); Go answers %d %.200q", object, len(served), want.status, want.body)
			}
		})
	}
	t.Logf("%d requests: %d rewritten to objects, %d to missing objects", len(reqs), rewritten, missing)
}

// TestCloudFrontCatalogFunction: the function is the file with the
// catalogs listed, under CloudFront's size limit, with a top-level
// handler; names catalogd would refuse and functions too large are
// refused.
func TestCloudFrontCatalogFunction(t *testing.T) {
	src, err := os.ReadFile("cloudfront_catalogs.js")
	if err != nil {
		t.Fatal(err)
	}
	fn, err := CloudFrontCatalogFunction([]string{"b", "a.b", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(string(src), catalogsPlaceholder, "var CATALOGS = {'a.b': 1, 'b': 1};\n", 1); fn != want || fn == string(src) ||
		len(fn) > CloudFrontMaxSize || !strings.Contains(fn, "\nfunction handler(event) {") {
		t.Errorf("catalogs function: %d bytes (at most %d), the catalogs listed, a top-level handler:\n%.400s", len(fn), CloudFrontMaxSize, fn)
	}
	// The same messages as upgraph serve.
	for _, msg := range []string{site.CatalogNameTooLong} {
		if !strings.Contains(fn, msg) {
			t.Errorf("the function lacks %q", msg)
		}
	}
	for _, names := range [][]string{{"Bad"}, {"a'b"}, {strings.Repeat("a", 254)}} {
		if _, err := CloudFrontCatalogFunction(names); err == nil {
			t.Errorf("%.20q: accepted", names)
		}
	}
	many := make([]string, 400)
	for i := range many {
		many[i] = fmt.Sprintf("catalog-%d", i)
	}
	if _, err := CloudFrontCatalogFunction(many); err == nil || !strings.Contains(err.Error(), "400 catalogs") {
		t.Errorf("400 catalogs: %v", err)
	}
}

// runCloudFrontFile is runCloudFront for another function file (kvs: the
// KeyValueStore import file of one that reads a store, testdata/cfload.cjs).
func runCloudFrontFile(t testing.TB, script string, events []cfEvent, kvs ...string) []cfResult {
	t.Helper()
	in, err := json.Marshal(events)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nodeBinary(t), append([]string{filepath.Join("testdata", "cfrun.cjs"), script}, kvs...)...)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cfrun: %v\n%s", err, stderr.Bytes())
	}
	var results []cfResult
	if err := json.Unmarshal(out, &results); err != nil || len(results) != len(events) {
		t.Fatalf("cfrun: %d results for %d events: %v", len(results), len(events), err)
	}
	return results
}
