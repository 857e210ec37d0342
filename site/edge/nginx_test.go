package edge

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// request is one HTTP exchange compared between nginx and the Go handler.
type request struct {
	name   string
	method string // "" means GET
	target string // path and raw query
	header []string
}

const (
	origin  = "Origin: example.com"
	acrmGET = "Access-Control-Request-Method: GET"
	cvoID   = "01234567-89ab-4def-8123-456789abcdef"
)

// equivalent requests get the same status, headers below and body bytes.
var equivalent = []request{
	// Valid requests, every route, unknown channel, arch and version.
	{name: "channel", target: "/graph?channel=stable-4.16"},
	{name: "channel v1 route", target: "/v1/graph?channel=stable-4.16"},
	{name: "prefixed", target: "/api/upgrades_info/graph?channel=fast-4.16&arch=arm64"},
	{name: "as a cluster asks", target: "/api/upgrades_info/v1/graph?arch=amd64&channel=fast-4.16&id=" + cvoID + "&version=4.16.0", header: []string{"Accept: application/json"}},
	{name: "per-version arm64", target: "/graph?channel=candidate-4.16&arch=arm64&version=4.16.2"},
	{name: "version with build metadata", target: "/graph?channel=stable-4.16&version=4.16.1%2Bamd64"},
	{name: "unknown channel", target: "/graph?channel=nope-1.0"},
	{name: "unknown arch", target: "/graph?channel=stable-4.16&arch=ppc64le"},
	{name: "unknown version", target: "/graph?channel=stable-4.16&version=9.9.9"},
	{name: "version not semver", target: "/graph?channel=stable-4.16&version=latest"},
	{name: "empty version", target: "/graph?channel=stable-4.16&version="},
	{name: "version of another channel", target: "/graph?channel=stable-4.15&version=4.16.2"},
	{name: "dot channel", target: "/graph?channel=.&version=4.16.0"},
	{name: "dot-dot channel", target: "/graph?channel=..&arch=amd64&version=empty"},
	{name: "last channel wins", target: "/graph?channel=fast-4.16&channel=stable-4.15"},
	{name: "last version wins", target: "/graph?channel=fast-4.16&version=4.16.0&version=4.16.1"},
	{name: "last arch wins", target: "/graph?arch=x86_64&channel=fast-4.16&arch=arm64"},
	{name: "unknown parameters", target: "/graph?id=x&channel=stable-4.16&foo=bar"},
	{name: "HEAD", method: http.MethodHead, target: "/graph?channel=stable-4.16"},
	{name: "range ignored", target: "/graph?channel=stable-4.16", header: []string{"Range: bytes=0-9"}},
	{name: "repeated Accept headers", target: "/graph?channel=stable-4.16", header: []string{"Accept: application/json", "Accept: text/html"}},

	// Parameter errors (spec §6.3, §6.6, §6.7).
	{name: "no query", target: "/graph"},
	{name: "no channel", target: "/graph?arch=amd64&version=4.16.0"},
	{name: "semicolon in channel", target: "/graph?channel=stable-4.16;x"},
	{name: "empty channel", target: "/graph?channel="},
	{name: "bare channel", target: "/graph?channel&arch=amd64"},
	{name: "upper-case channel", target: "/graph?channel=Stable-4.9"},
	{name: "underscore channel", target: "/graph?channel=invalid_channel"},
	{name: "colon channel", target: "/graph?channel=invalid:channel"},
	{name: "equals channel", target: "/graph?channel=invalid=channel"},
	{name: "plus channel", target: "/graph?channel=stable+4.9"},
	{name: "quote channel", target: `/graph?channel=it's`},
	{name: "channel before arch", target: "/graph?channel=BAD&arch=BAD"},
	{name: "arch x86_64", target: "/graph?channel=stable-4.16&arch=x86_64"},
	{name: "empty arch", target: "/graph?channel=stable-4.16&arch="},
	{name: "bare arch", target: "/graph?channel=stable-4.16&arch"},
	{name: "semicolon elsewhere", target: "/graph?channel=stable-4.16&x=1;2"},
	{name: "malformed escape elsewhere", target: "/graph?channel=stable-4.16&x=%zz&%z=1&y=a%4"},
	{name: "malformed escapes in channel", target: "/graph?channel=%zz%4"},
	{name: "malformed escape in arch", target: "/graph?channel=stable-4.16&arch=%"},
	{name: "UTF-8 channel", target: "/graph?channel=caf\xc3\xa9"},
	{name: "plus-separated channel", target: "/graph?channel=a+b+c+d"},
	{name: "accept before missing channel", target: "/graph", header: []string{"Accept: text/html"}},

	// Accept (spec §6.4) and its list parsing.
	{name: "accept json", target: "/graph?channel=stable-4.16", header: []string{"Accept: application/json"}},
	{name: "accept v1", target: "/graph?channel=stable-4.16", header: []string{"Accept: application/vnd.redhat.cincinnati.v1+json"}},
	{name: "accept */*", target: "/graph?channel=stable-4.16", header: []string{"Accept: */*"}},
	{name: "accept *", target: "/graph?channel=stable-4.16", header: []string{"Accept: *"}},
	{name: "accept application/*", target: "/graph?channel=stable-4.16", header: []string{"Accept: application/*"}},
	{name: "accept text/html", target: "/graph?channel=stable-4.16", header: []string{"Accept: text/html"}},
	{name: "accept v2", target: "/graph?channel=stable-4.16", header: []string{"Accept: application/vnd.redhat.cincinnati.v2+json"}},
	{name: "accept list", target: "/graph?channel=stable-4.16", header: []string{"Accept: application/json, text/plain"}},
	{name: "accept q", target: "/graph?channel=stable-4.16", header: []string{"Accept: application/json;q=0.9"}},
	{name: "accept case", target: "/graph?channel=stable-4.16", header: []string{"Accept: Application/JSON"}},
	{name: "accept q=0", target: "/graph?channel=stable-4.16", header: []string{"Accept: application/json;q=0"}},
	{name: "accept browser", target: "/graph?channel=stable-4.16", header: []string{"Accept: text/html,application/xhtml+xml,*/*;q=0.8"}},
	{name: "accept v1 first", target: "/graph?channel=stable-4.16", header: []string{"Accept: application/vnd.redhat.cincinnati.v1+json, application/json"}},
	{name: "accept json first", target: "/graph?channel=stable-4.16", header: []string{"Accept: application/json, application/vnd.redhat.cincinnati.v1+json"}},
	{name: "accept params", target: "/graph?channel=stable-4.16", header: []string{"Accept: application/json; charset=utf-8"}},
	{name: "accept before params", target: "/graph?channel=BAD", header: []string{"Accept: text/html"}},

	// CORS (spec §6.2) and methods.
	{name: "origin", target: "/graph?channel=stable-4.16", header: []string{origin}},
	{name: "origin on error", target: "/graph?channel=BAD", header: []string{origin}},
	{name: "preflight", method: http.MethodOptions, target: "/graph?channel=stable-4.16", header: []string{origin, acrmGET}},
	{name: "preflight HEAD", method: http.MethodOptions, target: "/api/upgrades_info/v1/graph", header: []string{origin, "Access-Control-Request-Method: HEAD"}},
	{name: "preflight PUT", method: http.MethodOptions, target: "/graph", header: []string{origin, "Access-Control-Request-Method: PUT"}},
	{name: "preflight with headers", method: http.MethodOptions, target: "/graph", header: []string{origin, acrmGET, "Access-Control-Request-Headers: x-foo"}},
	{name: "preflight without origin", method: http.MethodOptions, target: "/graph", header: []string{acrmGET}},
	{name: "preflight elsewhere", method: http.MethodOptions, target: "/elsewhere", header: []string{origin, acrmGET}},
	{name: "OPTIONS", method: http.MethodOptions, target: "/graph?channel=stable-4.16"},
	{name: "POST", method: http.MethodPost, target: "/graph?channel=stable-4.16", header: []string{origin}},
	{name: "DELETE", method: http.MethodDelete, target: "/v1/graph"},

	// Other paths.
	{name: "unknown path", target: "/elsewhere", header: []string{origin}},
	{name: "trailing slash", target: "/graph/?channel=stable-4.16"},
	{name: "double slash", target: "//graph?channel=stable-4.16"},
	{name: "prefix only", target: "/api/upgrades_info"},
	{name: "file path", target: "/graph/amd64/stable-4.16.json"},
	{name: "index", target: "/index.json"},
}

// sig is the path of one of the demo trees' signatures after /signatures/.
const sig = "sha256=" + demoSignature + "/signature-"

// treeRequests are the paths upgraph serve answers besides the graph API
// (site/static.go, site/handler.go): the tree's files, served only when it
// carries the viewer, and release signatures, served from any tree. Both
// servers must give each the same status, headers and body bytes.
var treeRequests = []request{
	{name: "root", target: "/"},
	{name: "root with query", target: "/?channel=stable-4.16"},
	{name: "root HEAD", method: http.MethodHead, target: "/"},
	{name: "root POST", method: http.MethodPost, target: "/", header: []string{origin}},
	{name: "index.html", target: "/index.html", header: []string{origin}},
	{name: "index.json", target: "/index.json"},
	{name: "index.json HEAD", method: http.MethodHead, target: "/index.json"},
	{name: "index.json POST", method: http.MethodPost, target: "/index.json"},
	{name: "index.json OPTIONS", method: http.MethodOptions, target: "/index.json"},
	{name: "index.json preflight", method: http.MethodOptions, target: "/index.json", header: []string{origin, acrmGET}},
	{name: "index.json range", target: "/index.json", header: []string{"Range: bytes=0-9"}},
	{name: "viewer script", target: "/viewer/app.js"},
	{name: "viewer style", target: "/viewer/style.css"},
	{name: "viewer text", target: "/viewer/VERSIONS.txt"},
	{name: "viewer json", target: "/viewer/graphs.json"},
	{name: "viewer directory", target: "/viewer/"},
	{name: "viewer without slash", target: "/viewer"},
	{name: "viewer missing file", target: "/viewer/nope.js"},
	{name: "viewer DELETE", method: http.MethodDelete, target: "/viewer/app.js"},
	{name: "graph file", target: "/graph/arm64/stable-4.16/4.16.0.json", header: []string{origin}},
	{name: "empty graph file", target: "/graph/empty.json"},
	{name: "graph directory", target: "/graph/amd64"},
	{name: "graph file under prefix", target: "/api/upgrades_info/graph/amd64/stable-4.16.json"},
	{name: "index under prefix", target: "/api/upgrades_info/index.json"},
	{name: "schema", target: "/schema/graph.schema.json"},
	{name: "signatures directory", target: "/signatures/"},

	{name: "signature", target: "/signatures/" + sig + "1"},
	{name: "signature 2 under prefix", target: "/api/upgrades_info/signatures/" + sig + "2", header: []string{origin}},
	{name: "signature HEAD", method: http.MethodHead, target: "/signatures/" + sig + "1"},
	{name: "signature POST", method: http.MethodPost, target: "/signatures/" + sig + "1"},
	{name: "signature POST bad path", method: http.MethodPost, target: "/signatures/nope"},
	{name: "signature OPTIONS", method: http.MethodOptions, target: "/signatures/" + sig + "1"},
	{name: "signature preflight", method: http.MethodOptions, target: "/signatures/" + sig + "1", header: []string{origin, acrmGET}},
	{name: "signature range", target: "/signatures/" + sig + "1", header: []string{"Range: bytes=0-2"}},
	{name: "signature missing", target: "/signatures/" + sig + "3", header: []string{origin}},
	{name: "signature of another digest", target: "/signatures/sha256=" + strings.Repeat("0", 64) + "/signature-1"},
	{name: "signature sha=", target: "/signatures/sha=" + demoSignature + "/signature-1"},
	{name: "signature 0", target: "/signatures/" + sig + "0"},
	{name: "signature 01", target: "/signatures/" + sig + "01"},
	{name: "signature 100", target: "/signatures/" + sig + "100"},
	{name: "signature upper-case digest", target: "/signatures/sha256=" + strings.ToUpper(demoSignature) + "/signature-1"},
	{name: "signature other algorithm", target: "/signatures/md5=" + demoSignature + "/signature-1"},
	{name: "signature short digest", target: "/signatures/sha256=abc/signature-1"},
	{name: "signature digest only", target: "/signatures/sha256=" + demoSignature},
	{name: "signature trailing slash", target: "/signatures/" + sig + "1/"},
	{name: "signature under unknown prefix", target: "/api/signatures/" + sig + "1"},
}

// comparedHeaders are the headers both must send identically (ETag,
// Last-Modified, Date and Server legitimately differ).
var comparedHeaders = []string{"Content-Type", "Content-Length", "Content-Encoding", "Content-Range", "Accept-Ranges", "Cache-Control", "Vary",
	"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Allow", "X-Content-Type-Options"}

// noGzip leaves compression out of byte comparisons (the compressors
// differ); TestNginxGzip covers it.
var noGzip = &http.Client{Transport: &http.Transport{DisableCompression: true}}

// TestNginxMatchesGoHandler compares every request of equivalent and
// treeRequests between nginx and the Go handler on the demo tree, with
// the viewer and without (upgraph generate --no-viewer): status, the
// comparedHeaders (Content-Type, Cache-Control, Content-Length, …) and body.
func TestNginxMatchesGoHandler(t *testing.T) {
	for _, tree := range []struct {
		name string
		dir  string
		// Statuses the tree must give, guarding against a vacuous pass.
		want map[string]int
	}{
		{"viewer", demoTree(t), map[string]int{"root": 200, "index.json": 200, "viewer script": 200, "graph file": 200,
			"signature": 200, "signature 2 under prefix": 200, "signature missing": 404, "signature 0": 400, "schema": 404,
			"index.json POST": 405, "viewer directory": 404}},
		{"no-viewer", demoTreeNoViewer(t), map[string]int{"root": 404, "index.json": 404, "viewer script": 404, "graph file": 404,
			"signature": 200, "signature missing": 404, "index.json POST": 404}},
	} {
		t.Run(tree.name, func(t *testing.T) {
			ngx, goURL := startNginx(t, tree.dir), startGo(t, tree.dir)
			for _, rq := range append(slices.Clone(equivalent), treeRequests...) {
				t.Run(rq.name, func(t *testing.T) {
					method := rq.method
					if method == "" {
						method = http.MethodGet
					}
					want := fetch(t, noGzip, method, goURL+rq.target, rq.header...)
					got := fetch(t, noGzip, method, ngx+rq.target, rq.header...)
					if got.status != want.status {
						t.Errorf("status: nginx %d, Go %d", got.status, want.status)
					}
					if s, ok := tree.want[rq.name]; ok && want.status != s {
						t.Errorf("status %d, want %d", want.status, s)
					}
					for _, h := range comparedHeaders {
						if h == "Content-Length" && headNotFound(method, want) {
							// Documented: nginx sends "Content-Length: 0" where Go sends none.
							if g := got.header.Get(h); g != "0" {
								t.Errorf("HEAD 404 Content-Length: nginx %q, documented \"0\"", g)
							}
							continue
						}
						if g, w := got.header.Values(h), want.header.Values(h); strings.Join(g, "\n") != strings.Join(w, "\n") {
							t.Errorf("%s: nginx %q, Go %q", h, g, w)
						}
					}
					if !bytes.Equal(got.body, want.body) {
						t.Errorf("body:\nnginx %.300s\nGo    %.300s", got.body, want.body)
					}
				})
			}
		})
	}
}

// headNotFound reports a HEAD answered 404 without a Content-Length, as
// the Go handler answers unknown paths; nginx sends "Content-Length: 0".
func headNotFound(method string, r response) bool {
	return method == http.MethodHead && r.status == http.StatusNotFound && len(r.header.Values("Content-Length")) == 0
}

// TestNginxConditional checks revalidation: each server's own ETag gives
// 304 with the caching headers.
func TestNginxConditional(t *testing.T) {
	dir := demoTree(t)
	for name, base := range map[string]string{"nginx": startNginx(t, dir), "go": startGo(t, dir)} {
		for _, target := range []string{"/graph?channel=stable-4.16&version=4.16.0", "/", "/index.json", "/viewer/app.js", "/signatures/" + sig + "1"} {
			url := base + target
			first := fetch(t, noGzip, http.MethodGet, url)
			etag := first.header.Get("ETag")
			again := fetch(t, noGzip, http.MethodGet, url, "If-None-Match: "+etag)
			if first.status != 200 || etag == "" || again.status != http.StatusNotModified || len(again.body) != 0 ||
				again.header.Get("Cache-Control") != first.header.Get("Cache-Control") {
				t.Errorf("%s %s: first %d ETag %q; revalidation %d %q Cache-Control %q", name, target, first.status, etag, again.status, again.body, again.header.Get("Cache-Control"))
			}
		}
	}
}

// TestNginxGzip checks that both answer clients that accept gzip (as the
// CVO's Go transport does) with the same content: graphs with the tree's
// gzip copies, byte for byte (neither compresses them), HEAD included;
// the tree's other files compressed as they are sent.
func TestNginxGzip(t *testing.T) {
	dir := demoTree(t)
	ngx, goURL := startNginx(t, dir), startGo(t, dir)
	copies := map[string]string{
		"/graph?channel=fast-4.16": "graph/amd64/fast-4.16.json.gz", "/graph?channel=nope": "graph/empty.json.gz",
		"/graph?channel=fast-4.16&version=4.16.0": "graph/amd64/fast-4.16/4.16.0.json.gz", "/graph/amd64/fast-4.16.json": "graph/amd64/fast-4.16.json.gz",
	}
	for _, target := range []string{"/graph?channel=fast-4.16", "/graph?channel=nope", "/graph?channel=fast-4.16&version=4.16.0",
		"/", "/index.json", "/viewer/app.js", "/graph/amd64/fast-4.16.json", "/signatures/" + sig + "1"} {
		want := fetch(t, noGzip, http.MethodGet, goURL+target, "Accept-Encoding: gzip")
		got := fetch(t, noGzip, http.MethodGet, ngx+target, "Accept-Encoding: gzip")
		if got.header.Get("Content-Encoding") != "gzip" || want.header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s: Content-Encoding nginx %q, Go %q", target, got.header.Get("Content-Encoding"), want.header.Get("Content-Encoding"))
		}
		if g, w := gunzip(t, got.body), gunzip(t, want.body); !bytes.Equal(g, w) {
			t.Errorf("%s: decompressed bodies differ:\nnginx %s\nGo    %s", target, g, w)
		}
		if name, ok := copies[target]; ok {
			copyBytes, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.body, copyBytes) || !bytes.Equal(want.body, copyBytes) {
				t.Errorf("%s: nginx %d bytes, Go %d bytes; want the copy %s, %d bytes", target, len(got.body), len(want.body), name, len(copyBytes))
			}
			for _, h := range []string{"Content-Type", "Content-Length", "Vary", "Cache-Control"} {
				if got.header.Get(h) != want.header.Get(h) {
					t.Errorf("%s: %s nginx %q, Go %q", target, h, got.header.Get(h), want.header.Get(h))
				}
			}
			wantHead := fetch(t, noGzip, http.MethodHead, goURL+target, "Accept-Encoding: gzip")
			gotHead := fetch(t, noGzip, http.MethodHead, ngx+target, "Accept-Encoding: gzip")
			for _, h := range []string{"Content-Encoding", "Content-Length", "Content-Type"} {
				if gotHead.header.Get(h) != wantHead.header.Get(h) {
					t.Errorf("HEAD %s: %s nginx %q, Go %q", target, h, gotHead.header.Get(h), wantHead.header.Get(h))
				}
			}
		}
	}
	// Errors are never compressed.
	got := fetch(t, noGzip, http.MethodGet, ngx+"/graph?channel=BAD", "Accept-Encoding: gzip")
	if got.header.Get("Content-Encoding") != "" {
		t.Errorf("error response compressed")
	}
}

// TestNginxKnownDifferences pins what README.md documents nginx doing
// differently, so the documentation stays true.
func TestNginxKnownDifferences(t *testing.T) {
	dir := demoTree(t)
	ngx, goURL := startNginx(t, dir), startGo(t, dir)
	const channelRegex = `does not match regex '^[0-9a-z\\-\\.]+$'"}`
	for _, tc := range []struct {
		name        string
		target      string
		header      []string
		nginxStatus int
		goStatus    int
		nginxType   string // Content-Type, checked when set
		nginxBody   string // checked when set
		sameBody    bool
	}{
		{name: "empty Accept is taken for none", target: "/graph?channel=stable-4.16", header: []string{"Accept:"},
			nginxStatus: 200, goStatus: 406, nginxType: "application/vnd.redhat.cincinnati.v1+json"},
		{name: "first acceptable range wins over a higher q", target: "/graph?channel=stable-4.16",
			header:      []string{"Accept: application/json;q=0.5, application/vnd.redhat.cincinnati.v1+json"},
			nginxStatus: 200, goStatus: 200, nginxType: "application/json", sameBody: true},
		{name: "a q=0 range only rules itself out", target: "/graph?channel=stable-4.16",
			header:      []string{"Accept: */*, application/*;q=0"},
			nginxStatus: 200, goStatus: 406, nginxType: "application/json"},
		{name: "a more specific range does not override an earlier one", target: "/graph?channel=stable-4.16",
			header:      []string{"Accept: application/json;q=0, */*"},
			nginxStatus: 200, goStatus: 200, nginxType: "application/json", sameBody: true},
		{name: "values are not percent-decoded", target: "/graph?channel=stable%2D4.16",
			nginxStatus: 400, goStatus: 200,
			nginxBody: `{"kind":"invalid_params","value":"invalid client parameters: channel ` + channelRegex},
		{name: "undecodable values are not echoed", target: "/graph?channel=a%20b",
			nginxStatus: 400, goStatus: 400,
			nginxBody: `{"kind":"invalid_params","value":"invalid client parameters: channel ` + channelRegex},
		{name: "an undecoded version gets the channel graph", target: "/graph?channel=stable-4.16&version=+4.16.0",
			nginxStatus: 200, goStatus: 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fetch(t, noGzip, http.MethodGet, ngx+tc.target, tc.header...)
			want := fetch(t, noGzip, http.MethodGet, goURL+tc.target, tc.header...)
			if got.status != tc.nginxStatus || want.status != tc.goStatus {
				t.Errorf("status: nginx %d (documented %d), Go %d (documented %d)", got.status, tc.nginxStatus, want.status, tc.goStatus)
			}
			if tc.nginxType != "" && got.header.Get("Content-Type") != tc.nginxType {
				t.Errorf("Content-Type %q, documented %q", got.header.Get("Content-Type"), tc.nginxType)
			}
			if tc.nginxBody != "" && string(got.body) != tc.nginxBody {
				t.Errorf("body %s, documented %s", got.body, tc.nginxBody)
			}
			if tc.sameBody != bytes.Equal(got.body, want.body) {
				t.Errorf("bodies equal: %v, documented %v\nnginx %.200s\nGo    %.200s", !tc.sameBody, tc.sameBody, got.body, want.body)
			}
		})
	}
}

// TestNginxConfigSnippet checks the include form: maps and a server block
// that nginx accepts inside an http block of its own.
func TestNginxConfigSnippet(t *testing.T) {
	snippet := NginxConfig(NginxOptions{Root: "/srv/tree", Listen: "8080", Prefixes: []string{"/custom"}})
	for _, unwanted := range []string{"events", "http {", "pid ", "daemon"} {
		if strings.Contains(snippet, unwanted) {
			t.Errorf("snippet contains %q", unwanted)
		}
	}
	if !strings.Contains(snippet, `location = "/custom/v1/graph"`) || strings.Contains(snippet, `location = "/graph"`) {
		t.Errorf("prefixes not applied:\n%s", snippet)
	}
	prefix := t.TempDir()
	conf := filepath.Join(prefix, "nginx.conf")
	full := "pid nginx.pid;\nerror_log stderr;\nevents {}\nhttp {\n" + snippet + "}\n"
	if err := os.WriteFile(conf, []byte(full), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(nginxBinary(t), "-t", "-q", "-c", conf, "-p", prefix+"/").CombinedOutput(); err != nil {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
}

func TestNginxOptionsValidate(t *testing.T) {
	good := NginxOptions{Root: "/srv/tree", Listen: "[::]:8080", Prefixes: []string{"", "/api/upgrades_info"}}
	if err := good.Validate(); err != nil {
		t.Errorf("valid options rejected: %v", err)
	}
	for _, bad := range []NginxOptions{
		{Root: "", Listen: "8080"},
		{Root: "/srv/$tree", Listen: "8080"},
		{Root: "/srv/tree", Listen: "8080; include /etc/passwd"},
		{Root: "/srv/tree", Listen: "8080", Prefixes: []string{"api"}},
		{Root: "/srv/tree", Listen: "8080", Prefixes: []string{"/a b"}},
		{Root: "/srv/tree", Listen: "8080", CacheControl: `max-age=1"`},
	} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func fetch(t testing.TB, c *http.Client, method, url string, header ...string) response {
	t.Helper()
	resp := get(t, c, method, url, header...)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, body}
}

func gunzip(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
