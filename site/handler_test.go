package site_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// TestRouteErrors: the non-query errors, with exact bodies.
func TestRouteErrors(t *testing.T) {
	h := site.CORS(newHandler(t, "", site.Options{}))
	sigBase := "/signatures/sha256=" + sigDigest
	badSig := errBody("invalid_params", "invalid client parameters: signature path must be sha256=<hex digest>/signature-<N>")
	missingDigest := strings.Repeat("f", 64)
	cases := []struct {
		name, method, target string
		status               int
		body                 string
		allow                string
	}{
		{"POST graph", "POST", "/graph?channel=fast-4.16", 405, errBody("method_not_allowed", "method POST is not allowed; use GET or HEAD"), "GET, HEAD"},
		{"PUT v1 graph", "PUT", "/api/upgrades_info/v1/graph?channel=fast-4.16", 405, errBody("method_not_allowed", "method PUT is not allowed; use GET or HEAD"), "GET, HEAD"},
		{"DELETE graph", "DELETE", "/v1/graph", 405, errBody("method_not_allowed", "method DELETE is not allowed; use GET or HEAD"), "GET, HEAD"},
		{"OPTIONS without preflight", "OPTIONS", "/graph?channel=fast-4.16", 405, errBody("method_not_allowed", "method OPTIONS is not allowed; use GET or HEAD"), "GET, HEAD"},
		{"POST openapi", "POST", "/openapi", 405, errBody("method_not_allowed", "method POST is not allowed; use GET or HEAD"), "GET, HEAD"},
		{"POST signature", "POST", sigBase + "/signature-1", 405, errBody("method_not_allowed", "method POST is not allowed; use GET or HEAD"), "GET, HEAD"},
		{"POST before Accept", "POST", "/graph", 405, errBody("method_not_allowed", "method POST is not allowed; use GET or HEAD"), "GET, HEAD"},

		{"signature bad algo", "GET", "/signatures/md5=" + sigDigest + "/signature-1", 400, badSig, ""},
		{"signature algo sha512", "GET", "/signatures/sha512=" + sigDigest + "/signature-1", 400, badSig, ""},
		{"signature no =", "GET", "/signatures/sha256" + sigDigest + "/signature-1", 400, badSig, ""},
		{"signature two =", "GET", "/signatures/sha256==" + sigDigest + "/signature-1", 400, badSig, ""},
		{"signature upstream graph-data layout", "GET", "/signatures/sha256/" + sigDigest + "/signature-1", 400, badSig, ""},
		{"signature short digest", "GET", "/signatures/sha256=0123/signature-1", 400, badSig, ""},
		{"signature upper-case digest", "GET", "/signatures/sha256=" + strings.ToUpper(sigDigest) + "/signature-1", 400, badSig, ""},
		{"signature no name", "GET", sigBase, 400, badSig, ""},
		{"signature trailing slash", "GET", sigBase + "/", 400, badSig, ""},
		{"signature bad name", "GET", sigBase + "/signature-0", 400, badSig, ""},
		{"signature name too long", "GET", sigBase + "/signature-100", 400, badSig, ""},
		{"signature extra segment", "GET", sigBase + "/signature-1/x", 400, badSig, ""},
		{"signature empty", "GET", "/signatures/", 400, badSig, ""},
		{"signature missing", "GET", "/signatures/sha256=" + missingDigest + "/signature-1", 404, errBody("does_not_exist", "does not exist: sha256="+missingDigest+"/signature-1"), ""},
		{"signature missing N", "GET", sigBase + "/signature-2", 404, errBody("does_not_exist", "does not exist: sha256="+sigDigest+"/signature-2"), ""},
		{"signature sha algo missing", "GET", "/signatures/sha=" + sigDigest + "/signature-1", 404, errBody("does_not_exist", "does not exist: sha="+sigDigest+"/signature-1"), ""},
		{"signature prefixed missing", "GET", "/api/upgrades_info/signatures/sha256=" + missingDigest + "/signature-1", 404, errBody("does_not_exist", "does not exist: sha256="+missingDigest+"/signature-1"), ""},

		{"unknown path", "GET", "/nope", 404, "", ""},
		{"root", "GET", "/", 404, "", ""},
		{"trailing slash", "GET", "/graph/?channel=fast-4.16", 404, "", ""},
		{"v1 trailing slash", "GET", "/v1/graph/", 404, "", ""},
		{"prefixed trailing slash", "GET", "/api/upgrades_info/graph/", 404, "", ""},
		{"v2 graph", "GET", "/v2/graph?channel=fast-4.16", 404, "", ""},
		{"prefix alone", "GET", "/api/upgrades_info", 404, "", ""},
		{"upper-case path", "GET", "/Graph?channel=fast-4.16", 404, "", ""},
		{"graph-data", "GET", "/graph-data", 404, "", ""},
		{"unknown path POST", "POST", "/nope", 404, "", ""},
		{"livez is not served", "GET", "/livez", 404, "", ""},
	}
	for _, c := range clients(t, h) {
		for _, tc := range cases {
			t.Run(c.name+"/"+tc.name, func(t *testing.T) {
				res, body := c.do(t, tc.method, tc.target, nil)
				if res.StatusCode != tc.status || string(body) != tc.body {
					t.Fatalf("%s %s: got %d %q, want %d %q", tc.method, tc.target, res.StatusCode, body, tc.status, tc.body)
				}
				if got := res.Header.Get("Allow"); got != tc.allow {
					t.Errorf("Allow %q, want %q", got, tc.allow)
				}
				if tc.body != "" {
					checkErrorBody(t, body)
					if ct := res.Header.Get("Content-Type"); ct != mediaJSON {
						t.Errorf("Content-Type %q, want %q", ct, mediaJSON)
					}
				}
			})
		}
	}
}

// TestSignatureServed: a signature the tree lists is served as is.
func TestSignatureServed(t *testing.T) {
	h := site.CORS(newHandler(t, "", site.Options{}))
	for _, c := range clients(t, h) {
		for _, target := range []string{"/" + sigName, "/api/upgrades_info/" + sigName} {
			res, body := c.do(t, "GET", target, nil)
			if res.StatusCode != 200 || string(body) != sigBody {
				t.Fatalf("%s %s: got %d %q", c.name, target, res.StatusCode, body)
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/octet-stream" {
				t.Errorf("Content-Type %q", ct)
			}
			if res.Header.Get("ETag") == "" {
				t.Error("no ETag")
			}
		}
	}
}

// TestGraphBehaviour: which file answers which query.
func TestGraphBehaviour(t *testing.T) {
	h := site.CORS(newHandler(t, "", site.Options{}))
	file := func(name string) string { return string(treeFile(t, name)) }
	fast := file("graph/amd64/fast-4.16.json")
	cases := []struct {
		name, target, body string
	}{
		{"channel", "/graph?channel=fast-4.16", fast},
		{"channel amd64", "/graph?channel=fast-4.16&arch=amd64", fast},
		{"channel arm64", "/graph?channel=fast-4.16&arch=arm64", file("graph/arm64/fast-4.16.json")},
		{"stable-4.15", "/graph?channel=stable-4.15", file("graph/amd64/stable-4.15.json")},
		{"version", "/graph?channel=fast-4.16&version=4.16.0", file("graph/amd64/fast-4.16/4.16.0.json")},
		{"version arm64", "/graph?arch=arm64&channel=stable-4.16&version=4.15.2", file("graph/arm64/stable-4.16/4.15.2.json")},
		{"version with build metadata", "/graph?channel=fast-4.16&version=4.16.0%2Bamd64", file("graph/amd64/fast-4.16/4.16.0.json")},
		{"CVO-style query", "/api/upgrades_info/v1/graph?arch=amd64&channel=fast-4.16&id=5a1ba2d3-6e1c-4bd9-a8f3-5cc6bb2e2a46&version=4.15.0", file("graph/amd64/fast-4.16/4.15.0.json")},
		{"version not in the channel", "/graph?channel=stable-4.16&version=4.16.2", file("graph/amd64/stable-4.16.json")},
		{"unknown version", "/graph?channel=fast-4.16&version=4.99.0", fast},
		{"invalid semver version", "/graph?channel=fast-4.16&version=four", fast},
		{"version with v", "/graph?channel=fast-4.16&version=v4.16.0", fast},
		{"unknown channel", "/graph?channel=stable-9.9", emptyGraph},
		{"unknown channel with version", "/graph?channel=stable-9.9&version=4.16.0", emptyGraph},
		{"unknown arch", "/graph?channel=fast-4.16&arch=s390x", emptyGraph},
		{"unknown arch with version", "/graph?channel=fast-4.16&arch=s390x&version=4.16.0", emptyGraph},
		{"id and unknown params ignored", "/graph?id=anything&channel=fast-4.16&foo=bar&content_type=text%2Fhtml", fast},
		{"repeated channel, last wins", "/graph?channel=nope-1.0&channel=fast-4.16", fast},
		{"repeated arch, last wins", "/graph?channel=fast-4.16&arch=arm64&arch=amd64", fast},
		{"repeated version, last wins", "/graph?channel=fast-4.16&version=4.15.0&version=4.16.0", file("graph/amd64/fast-4.16/4.16.0.json")},
		{"v1 path", "/v1/graph?channel=fast-4.16", fast},
		{"prefixed path", "/api/upgrades_info/graph?channel=fast-4.16", fast},
		{"prefixed v1 path", "/api/upgrades_info/v1/graph?channel=fast-4.16", fast},
	}
	for _, c := range clients(t, h) {
		for _, tc := range cases {
			t.Run(c.name+"/"+tc.name, func(t *testing.T) {
				res, body := c.do(t, "GET", tc.target, nil)
				if res.StatusCode != 200 || string(body) != tc.body {
					t.Fatalf("%s: got %d %.200s\nwant 200 %.200s", tc.target, res.StatusCode, body, tc.body)
				}
				checkGraphBody(t, body)
				if ct := res.Header.Get("Content-Type"); ct != mediaV1 {
					t.Errorf("Content-Type %q, want %q", ct, mediaV1)
				}
				if cc := res.Header.Get("Cache-Control"); cc != site.DefaultCacheControl {
					t.Errorf("Cache-Control %q, want %q", cc, site.DefaultCacheControl)
				}
				if res.Header.Get("ETag") == "" {
					t.Error("no ETag")
				}
			})
		}
	}
}

// TestDemoFacts: the tree is the demo the other tests assume.
func TestDemoFacts(t *testing.T) {
	h := newHandler(t, "", site.Options{})
	_, body := get(t, h, "/graph?channel=fast-4.16", hdr("Accept", mediaJSON))
	var g struct {
		Nodes []struct {
			Version string `json:"version"`
		} `json:"nodes"`
		Edges            [][2]int `json:"edges"`
		ConditionalEdges []struct {
			Edges []struct{ From, To string } `json:"edges"`
			Risks []struct{ Name string }     `json:"risks"`
		} `json:"conditionalEdges"`
	}
	if err := json.Unmarshal(body, &g); err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for i, n := range g.Nodes {
		idx[n.Version] = i
	}
	for _, v := range []string{"4.15.0", "4.15.1", "4.15.2", "4.16.0", "4.16.1", "4.16.2"} {
		if _, ok := idx[v]; !ok {
			t.Errorf("fast-4.16 lacks %s", v)
		}
	}
	for _, e := range g.Edges {
		if e == [2]int{idx["4.15.0"], idx["4.16.1"]} {
			t.Error("4.15.0 → 4.16.1 should be blocked")
		}
		if e == [2]int{idx["4.16.0"], idx["4.16.2"]} {
			t.Error("4.16.0 → 4.16.2 should be conditional only")
		}
	}
	if len(g.ConditionalEdges) != 1 || g.ConditionalEdges[0].Risks[0].Name != "ExampleEtcdRisk" ||
		g.ConditionalEdges[0].Edges[0].From != "4.16.0" || g.ConditionalEdges[0].Edges[0].To != "4.16.2" {
		t.Errorf("conditional edges: %+v", g.ConditionalEdges)
	}
}

// TestPrefixes: custom prefixes replace the default ones.
func TestPrefixes(t *testing.T) {
	h := newHandler(t, "", site.Options{Prefixes: []string{"/custom/api"}})
	fast := string(treeFile(t, "graph/amd64/fast-4.16.json"))
	for target, want := range map[string]int{
		"/custom/api/graph?channel=fast-4.16":        200,
		"/custom/api/v1/graph?channel=fast-4.16":     200,
		"/custom/api/openapi":                        200,
		"/custom/api/v1/openapi":                     200,
		"/custom/api/signatures/" + sigName[11:]:     200,
		"/graph?channel=fast-4.16":                   404,
		"/v1/graph?channel=fast-4.16":                404,
		"/api/upgrades_info/graph?channel=fast-4.16": 404,
		"/openapi":                                       404,
		"/" + sigName:                                    404,
		"/custom/graph?channel=fast-4.16":                404,
		"/custom/apigraph?channel=fast-4.16":             404,
		"/custom/api/custom/api/graph?channel=fast-4.16": 404,
		"/healthz":                                       200,
		"/readyz":                                        200,
		"/metrics":                                       200,
	} {
		res, body := get(t, h, target, nil)
		if res.StatusCode != want {
			t.Errorf("%s: got %d, want %d", target, res.StatusCode, want)
		}
		if want == 404 && len(body) != 0 {
			t.Errorf("%s: 404 with body %q", target, body)
		}
		if strings.Contains(target, "/graph?") && want == 200 && string(body) != fast {
			t.Errorf("%s: not the channel file", target)
		}
	}
	// The root prefix alone.
	h = newHandler(t, "", site.Options{Prefixes: []string{""}})
	if res, _ := get(t, h, "/graph?channel=fast-4.16", nil); res.StatusCode != 200 {
		t.Errorf("root prefix: %d", res.StatusCode)
	}
	if res, _ := get(t, h, "/api/upgrades_info/graph?channel=fast-4.16", nil); res.StatusCode != 404 {
		t.Errorf("root prefix only, /api/upgrades_info/graph: %d", res.StatusCode)
	}
}

// TestOpenAPI: valid JSON, every path prefixed, channel required on /graph.
func TestOpenAPI(t *testing.T) {
	for _, tc := range []struct {
		prefixes []string
		prefix   string
		targets  []string
	}{
		{nil, "/api/upgrades_info", []string{"/openapi", "/v1/openapi", "/api/upgrades_info/openapi", "/api/upgrades_info/v1/openapi"}},
		{[]string{"/custom"}, "/custom", []string{"/custom/openapi", "/custom/v1/openapi"}},
	} {
		h := site.CORS(newHandler(t, "", site.Options{Prefixes: tc.prefixes}))
		for _, c := range clients(t, h) {
			for _, target := range tc.targets {
				res, body := c.do(t, "GET", target, nil)
				if res.StatusCode != 200 {
					t.Fatalf("%s: %d", target, res.StatusCode)
				}
				var doc struct {
					OpenAPI string                    `json:"openapi"`
					Paths   map[string]map[string]any `json:"paths"`
				}
				if err := json.Unmarshal(body, &doc); err != nil {
					t.Fatalf("%s: %v", target, err)
				}
				if !strings.HasPrefix(doc.OpenAPI, "3.") || len(doc.Paths) == 0 {
					t.Fatalf("%s: not an OpenAPI 3 document with paths: %.200s", target, body)
				}
				for p := range doc.Paths {
					if !strings.HasPrefix(p, tc.prefix+"/") {
						t.Errorf("%s: path %q not under %q", target, p, tc.prefix)
					}
				}
				graph, ok := doc.Paths[tc.prefix+"/graph"]
				if !ok {
					t.Fatalf("%s: no %s/graph", target, tc.prefix)
				}
				params, _ := graph["get"].(map[string]any)["parameters"].([]any)
				found := false
				for _, p := range params {
					p := p.(map[string]any)
					if p["name"] == "channel" && p["in"] == "query" && p["required"] == true {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: channel is not a required query parameter of /graph", target)
				}
				if res.Header.Get("ETag") == "" {
					t.Errorf("%s: no ETag", target)
				}
			}
		}
	}
}

// TestCORS: spec §6.2.
func TestCORS(t *testing.T) {
	h := site.CORS(newHandler(t, "", site.Options{}))
	cases := []struct {
		name, method, target string
		hdr                  http.Header
		status               int
		allowOrigin, methods string
	}{
		{"echo origin", "GET", "/graph?channel=fast-4.16", hdr("Origin", "example.com"), 200, "example.com", ""},
		{"echo URL origin", "GET", "/graph?channel=fast-4.16", hdr("Origin", "https://console.example.com:8443"), 200, "https://console.example.com:8443", ""},
		{"echo origin on 400", "GET", "/graph", hdr("Origin", "example.com"), 400, "example.com", ""},
		{"echo origin on 406", "GET", "/graph?channel=fast-4.16", hdr("Origin", "example.com", "Accept", "text/html"), 406, "example.com", ""},
		{"echo origin on 404", "GET", "/nope", hdr("Origin", "example.com"), 404, "example.com", ""},
		{"no origin", "GET", "/graph?channel=fast-4.16", nil, 200, "", ""},
		{"preflight GET", "OPTIONS", "/graph?channel=fast-4.16", hdr("Origin", "example.com", "Access-Control-Request-Method", "GET"), 200, "example.com", "GET, HEAD"},
		{"preflight HEAD", "OPTIONS", "/api/upgrades_info/v1/graph", hdr("Origin", "example.com", "Access-Control-Request-Method", "HEAD"), 200, "example.com", "GET, HEAD"},
		{"preflight without Origin", "OPTIONS", "/graph?channel=fast-4.16", hdr("Access-Control-Request-Method", "GET"), 400, "", ""},
		{"preflight POST", "OPTIONS", "/graph?channel=fast-4.16", hdr("Origin", "example.com", "Access-Control-Request-Method", "POST"), 400, "", ""},
		{"preflight with request headers", "OPTIONS", "/graph?channel=fast-4.16", hdr("Origin", "example.com", "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "x-custom"), 400, "", ""},
	}
	for _, c := range clients(t, h) {
		for _, tc := range cases {
			t.Run(c.name+"/"+tc.name, func(t *testing.T) {
				res, body := c.do(t, tc.method, tc.target, tc.hdr)
				if res.StatusCode != tc.status {
					t.Fatalf("got %d %q, want %d", res.StatusCode, body, tc.status)
				}
				if got := res.Header.Get("Access-Control-Allow-Origin"); got != tc.allowOrigin {
					t.Errorf("Access-Control-Allow-Origin %q, want %q", got, tc.allowOrigin)
				}
				if got := res.Header.Values("Access-Control-Allow-Origin"); len(got) > 1 {
					t.Errorf("Access-Control-Allow-Origin sent %d times", len(got))
				}
				if got := res.Header.Get("Access-Control-Allow-Methods"); tc.methods != "" {
					ms := map[string]bool{}
					for _, m := range strings.Split(got, ",") {
						ms[strings.TrimSpace(m)] = true
					}
					if len(ms) != 2 || !ms["GET"] || !ms["HEAD"] {
						t.Errorf("Access-Control-Allow-Methods %q, want GET and HEAD", got)
					}
				}
				vary := strings.Join(res.Header.Values("Vary"), ", ")
				for _, v := range []string{"Origin", "Access-Control-Request-Method", "Access-Control-Request-Headers"} {
					if !strings.Contains(vary, v) {
						t.Errorf("Vary %q lacks %s", vary, v)
					}
				}
				if res.StatusCode == 400 && tc.method == "OPTIONS" && strings.HasPrefix(string(body), "{") {
					t.Errorf("CORS error should be plain text, got %q", body)
				}
				if res.Header.Get("Access-Control-Allow-Credentials") != "" || res.Header.Get("Access-Control-Allow-Headers") != "" {
					t.Error("credentials or request headers allowed")
				}
			})
		}
	}
}

// TestHEADAndConditional: HEAD mirrors GET without a body; ETag and
// If-None-Match.
func TestHEADAndConditional(t *testing.T) {
	h := site.CORS(newHandler(t, "", site.Options{}))
	for _, c := range clients(t, h) {
		for _, target := range []string{
			"/graph?channel=fast-4.16",
			"/graph?channel=fast-4.16&version=4.16.0",
			"/graph?channel=unknown",
			"/openapi",
			"/" + sigName,
		} {
			for _, gz := range []string{"", "gzip"} {
				t.Run(c.name+target+"/"+gz, func(t *testing.T) {
					var base http.Header
					if gz != "" {
						base = hdr("Accept-Encoding", gz)
					}
					getRes, getBody := c.do(t, "GET", target, base)
					headRes, headBody := c.do(t, "HEAD", target, base)
					if getRes.StatusCode != 200 || headRes.StatusCode != 200 {
						t.Fatalf("GET %d, HEAD %d", getRes.StatusCode, headRes.StatusCode)
					}
					if len(headBody) != 0 {
						t.Errorf("HEAD body %d bytes", len(headBody))
					}
					for _, k := range []string{"Content-Type", "Content-Length", "Content-Encoding", "ETag", "Cache-Control", "Vary"} {
						if g, hd := getRes.Header.Values(k), headRes.Header.Values(k); strings.Join(g, "|") != strings.Join(hd, "|") {
							t.Errorf("%s: GET %q, HEAD %q", k, g, hd)
						}
					}
					if cl := getRes.Header.Get("Content-Length"); cl != itoa(len(getBody)) {
						t.Errorf("Content-Length %s, body %d", cl, len(getBody))
					}
					etag := getRes.Header.Get("ETag")
					if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 3 {
						t.Fatalf("ETag %q is not a strong entity tag", etag)
					}
					inner := strings.Trim(etag, `"`)
					for _, inm := range []string{etag, "W/" + etag, `"x", ` + etag + `, "y"`, `"x",` + etag, "W/\"x\", W/" + etag, "*"} {
						for _, method := range []string{"GET", "HEAD"} {
							res, body := c.do(t, method, target, merge(base, hdr("If-None-Match", inm)))
							if res.StatusCode != http.StatusNotModified || len(body) != 0 {
								t.Errorf("%s If-None-Match %s: got %d with %d bytes, want 304 without a body", method, inm, res.StatusCode, len(body))
							}
							if res.Header.Get("ETag") != etag {
								t.Errorf("304 ETag %q, want %q", res.Header.Get("ETag"), etag)
							}
							if res.Header.Get("Content-Encoding") != "" {
								t.Errorf("304 with Content-Encoding %q", res.Header.Get("Content-Encoding"))
							}
						}
					}
					for _, inm := range []string{`"other"`, "W/\"other\"", `"` + inner + `x"`, inner, `"` + inner[:len(inner)-1] + `"`} {
						res, body := c.do(t, "GET", target, merge(base, hdr("If-None-Match", inm)))
						if res.StatusCode != 200 || !bytes.Equal(body, getBody) {
							t.Errorf("If-None-Match %s: got %d, want 200 with the body", inm, res.StatusCode)
						}
					}
				})
			}
		}
	}
}

// TestCacheControl: graph responses, empty graphs included, carry the
// default (or configured) Cache-Control; errors carry none.
func TestCacheControl(t *testing.T) {
	h := newHandler(t, "", site.Options{})
	for _, target := range []string{"/graph?channel=fast-4.16", "/v1/graph?channel=fast-4.16&version=4.16.0", "/graph?channel=nope", "/graph?channel=fast-4.16&arch=s390x"} {
		res, _ := get(t, h, target, nil)
		if cc := res.Header.Get("Cache-Control"); cc != site.DefaultCacheControl {
			t.Errorf("%s: Cache-Control %q, want %q", target, cc, site.DefaultCacheControl)
		}
	}
	for _, target := range []string{"/graph", "/graph?channel=Bad"} {
		if res, _ := get(t, h, target, nil); res.Header.Get("Cache-Control") != "" {
			t.Errorf("%s: error with Cache-Control %q", target, res.Header.Get("Cache-Control"))
		}
	}
	h = newHandler(t, "", site.Options{CacheControl: "no-store"})
	if res, _ := get(t, h, "/graph?channel=fast-4.16", nil); res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("configured Cache-Control: %q", res.Header.Get("Cache-Control"))
	}
}

// TestGzip: compression on request, a distinct ETag, computed once.
func TestGzip(t *testing.T) {
	hh := newHandler(t, "", site.Options{})
	h := site.CORS(hh)
	for _, c := range clients(t, h) {
		for _, target := range []string{"/graph?channel=fast-4.16", "/graph?channel=stable-4.16&version=4.15.0", "/graph?channel=none", "/openapi", "/" + sigName} {
			t.Run(c.name+target, func(t *testing.T) {
				idRes, idBody := c.do(t, "GET", target, nil)
				if idRes.Header.Get("Content-Encoding") != "" {
					t.Fatalf("no Accept-Encoding, Content-Encoding %q", idRes.Header.Get("Content-Encoding"))
				}
				var first []byte
				for i, ae := range []string{"gzip", "gzip, deflate, br", "br;q=1, gzip;q=0.5", "*"} {
					res, body := c.do(t, "GET", target, hdr("Accept-Encoding", ae))
					if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" {
						t.Fatalf("Accept-Encoding %q: %d, Content-Encoding %q", ae, res.StatusCode, res.Header.Get("Content-Encoding"))
					}
					if res.Header.Get("Content-Length") != itoa(len(body)) {
						t.Errorf("Content-Length %s, body %d", res.Header.Get("Content-Length"), len(body))
					}
					zr, err := gzip.NewReader(bytes.NewReader(body))
					if err != nil {
						t.Fatal(err)
					}
					plain, err := io.ReadAll(zr)
					if err != nil || !bytes.Equal(plain, idBody) {
						t.Fatalf("gunzipped body differs from the identity body (%v)", err)
					}
					if res.Header.Get("ETag") == idRes.Header.Get("ETag") {
						t.Errorf("gzip and identity share ETag %s", res.Header.Get("ETag"))
					}
					if !strings.Contains(strings.Join(res.Header.Values("Vary"), ","), "Accept-Encoding") {
						t.Errorf("Vary %q lacks Accept-Encoding", res.Header.Values("Vary"))
					}
					if i == 0 {
						first = body
					} else if !bytes.Equal(body, first) {
						t.Error("gzip bodies differ between requests")
					}
				}
				for _, ae := range []string{"gzip;q=0", "identity", "deflate", "*;q=0", "identity, gzip;q=0"} {
					res, body := c.do(t, "GET", target, hdr("Accept-Encoding", ae))
					if res.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, idBody) || res.Header.Get("ETag") != idRes.Header.Get("ETag") {
						t.Errorf("Accept-Encoding %q: Content-Encoding %q, identity body %v", ae, res.Header.Get("Content-Encoding"), bytes.Equal(body, idBody))
					}
				}
			})
		}
	}
	// The gzip body is computed once and kept with the cached content.
	a, err := hh.GzippedBody("graph/amd64/fast-4.16.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := hh.GzippedBody("graph/amd64/fast-4.16.json")
	if len(a) == 0 || &a[0] != &b[0] {
		t.Error("gzip body recomputed for the same cached file")
	}
}

// TestGzipFromCopies: a graph's gzip answer is its copy in the tree
// (FILE.gz, written by generate), byte for byte, with the copy's own ETag,
// streamed as identity answers are (nothing compressed, nothing cached);
// HEAD and If-None-Match answer for the copy. A tree without copies
// answers uncompressed, as nginx's gzip_static does.
func TestGzipFromCopies(t *testing.T) {
	const (
		target = "/graph?channel=stable-4.16&version=4.15.0"
		file   = "graph/amd64/stable-4.16/4.15.0.json"
	)
	copyBytes := treeFile(t, file+".gz")
	etag := `"` + manifest.SHA256(copyBytes)[:32] + `"`
	plainTag := `"` + manifest.SHA256(treeFile(t, file))[:32] + `"`
	for i := range clients(t, newHandler(t, "", site.Options{})) {
		h := newHandler(t, "", site.Options{}) // an empty cache for each path
		c := clients(t, h)[i]
		t.Run(c.name, func(t *testing.T) {
			for range 2 {
				res, body := c.do(t, "GET", target, hdr("Accept-Encoding", "gzip"))
				if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("ETag") != etag ||
					!bytes.Equal(body, copyBytes) || !slices.Contains(res.Header.Values("Vary"), "Accept, Accept-Encoding") {
					t.Fatalf("status %d, Content-Encoding %q, ETag %s (want %s), Vary %q, %d bytes (want the copy's %d)",
						res.StatusCode, res.Header.Get("Content-Encoding"), res.Header.Get("ETag"), etag, res.Header.Values("Vary"), len(body), len(copyBytes))
				}
			}
			if got := h.CachedBytes(); got != 0 {
				t.Errorf("cache holds %d bytes after gzip answers streamed from the copy", got)
			}
			res, body := c.do(t, "HEAD", target, hdr("Accept-Encoding", "gzip"))
			if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" || res.ContentLength != int64(len(copyBytes)) || len(body) != 0 {
				t.Errorf("HEAD: status %d, Content-Encoding %q, Content-Length %d", res.StatusCode, res.Header.Get("Content-Encoding"), res.ContentLength)
			}
			res, _ = c.do(t, "GET", target, hdr("Accept-Encoding", "gzip", "If-None-Match", etag))
			if res.StatusCode != 304 {
				t.Errorf("If-None-Match with the copy's ETag: %d", res.StatusCode)
			}
			res, _ = c.do(t, "GET", target, hdr("Accept-Encoding", "gzip", "If-None-Match", plainTag))
			if res.StatusCode != 200 {
				t.Errorf("If-None-Match with the identity ETag, asking for gzip: %d", res.StatusCode)
			}
		})
	}
	// Without copies.
	dir := filepath.Join(t.TempDir(), "tree")
	b, err := demoBuilt()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := generator.Render(context.Background(), b, generator.RenderOptions{Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Unix(0, 0), NoViewer: true}); err != nil {
		t.Fatal(err)
	}
	h := newHandler(t, dir, site.Options{})
	for _, c := range clients(t, h) {
		for _, q := range []string{target, "/graph?channel=nope"} {
			res, body := c.do(t, "GET", q, hdr("Accept-Encoding", "gzip"))
			if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "" || !json.Valid(body) {
				t.Errorf("%s: %s without copies: status %d, Content-Encoding %q", c.name, q, res.StatusCode, res.Header.Get("Content-Encoding"))
			}
		}
	}
}

// TestReadiness: before a generation, only /healthz and /metrics answer.
func TestReadiness(t *testing.T) {
	hh := site.NewHandler(site.Options{})
	h := site.CORS(hh)
	notReady := errBody("not_ready", "no generation loaded yet")
	for target, want := range map[string]int{
		"/readyz":                  503,
		"/healthz":                 200,
		"/metrics":                 200,
		"/graph?channel=fast-4.16": 503,
		"/api/upgrades_info/v1/graph?channel=nope": 503,
		"/" + sigName:  503,
		"/graph":       400, // validation comes first
		"/openapi":     200,
		"/nope":        404,
		"/graph/":      404,
		"/graph?arch=": 400,
	} {
		res, body := get(t, h, target, nil)
		if res.StatusCode != want {
			t.Errorf("before: %s: %d, want %d", target, res.StatusCode, want)
		}
		if want == 503 && target != "/readyz" && string(body) != notReady {
			t.Errorf("before: %s: body %s", target, body)
		}
	}
	if text := metricsText(t, h); strings.Contains(text, "upgraph_generation_age_seconds") {
		t.Error("generation age before any generation")
	}
	g, err := site.Load(treeDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	hh.SetGeneration(g)
	if hh.Generation() != g {
		t.Fatal("Generation() is not the one set")
	}
	for target, want := range map[string]int{"/readyz": 200, "/healthz": 200, "/graph?channel=fast-4.16": 200, "/" + sigName: 200} {
		if res, _ := get(t, h, target, nil); res.StatusCode != want {
			t.Errorf("after: %s: %d, want %d", target, res.StatusCode, want)
		}
	}
}

// TestMetrics: request counts by route and status, the latency histogram,
// fallbacks and the generation's age.
func TestMetrics(t *testing.T) {
	h := site.CORS(newHandler(t, "", site.Options{}))
	const n = 7
	for i := 0; i < n; i++ {
		get(t, h, "/graph?channel=fast-4.16", nil)
	}
	get(t, h, "/graph?channel=fast-4.16&version=4.16.0", nil)        // 200, no fallback
	get(t, h, "/graph?channel=fast-4.16&version=9.9.9", nil)         // unknown_version
	get(t, h, "/graph?channel=fast-4.16&version=bad", nil)           // unknown_version
	get(t, h, "/graph?channel=fast-4.16&version=", nil)              // no fallback
	get(t, h, "/v1/graph?channel=nope", nil)                         // unknown_channel
	get(t, h, "/graph?channel=fast-4.16&arch=s390x", nil)            // unknown_channel
	get(t, h, "/graph?channel=nope&version=4.16.0", nil)             // unknown_channel only
	get(t, h, "/graph?channel=Bad", nil)                             // 400
	get(t, h, "/graph", nil)                                         // 400
	get(t, h, "/graph?channel=fast-4.16", hdr("Accept", "x/y"))      // 406
	get(t, h, "/nope", nil)                                          // 404 other
	get(t, h, "/signatures/x", nil)                                  // 400 signatures
	get(t, h, "/openapi", nil)                                       // 200 openapi
	get(t, h, "/healthz", nil)                                       // 200 healthz
	get(t, h, "/graph?channel=fast-4.16", hdr("If-None-Match", "*")) // 304
	// Graph answers are streamed, in either encoding (gzip from the
	// tree's copies); signatures are kept in memory.
	get(t, h, "/graph?channel=fast-4.16", hdr("Accept-Encoding", "gzip"))
	get(t, h, "/"+sigName, nil)
	text := metricsText(t, h)
	const graphs200 = n + 8
	for series, want := range map[string]float64{
		`upgraph_http_requests_total{route="graph",status="200"}`:      graphs200,
		`upgraph_http_requests_total{route="graph",status="400"}`:      2,
		`upgraph_http_requests_total{route="graph",status="406"}`:      1,
		`upgraph_http_requests_total{route="graph",status="304"}`:      1,
		`upgraph_http_requests_total{route="other",status="404"}`:      1,
		`upgraph_http_requests_total{route="signatures",status="400"}`: 1,
		`upgraph_http_requests_total{route="signatures",status="200"}`: 1,
		`upgraph_http_requests_total{route="openapi",status="200"}`:    1,
		`upgraph_http_requests_total{route="healthz",status="200"}`:    1,
		`upgraph_http_request_duration_seconds_count`:                  graphs200 + 9,
		`upgraph_http_request_duration_seconds_bucket{le="+Inf"}`:      graphs200 + 9,
		`upgraph_graph_fallbacks_total{reason="unknown_version"}`:      2,
		`upgraph_graph_fallbacks_total{reason="unknown_channel"}`:      3,
	} {
		if got := metric(text, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
	if age := metric(text, "upgraph_generation_age_seconds"); age <= 0 {
		t.Errorf("upgraph_generation_age_seconds = %v", age)
	}
	if !strings.Contains(text, `upgraph_generation_info{id="sha256:`) {
		t.Error("no upgraph_generation_info")
	}
	if metric(text, "upgraph_cache_bytes") <= 0 {
		t.Error("upgraph_cache_bytes not positive after serving files")
	}
	// The histogram's buckets are cumulative and end at the count.
	var prev float64
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "upgraph_http_request_duration_seconds_bucket{") {
			var v float64
			if _, err := fmtSscan(line[strings.LastIndexByte(line, ' ')+1:], &v); err != nil || v < prev {
				t.Errorf("bucket line %q not cumulative", line)
			}
			prev = v
		}
	}
	// The /metrics request itself is counted once it is answered.
	text = metricsText(t, h)
	if got := metric(text, `upgraph_http_requests_total{route="metrics",status="200"}`); got != 1 {
		t.Errorf("metrics requests = %v, want 1", got)
	}
	if !strings.Contains(text, "# TYPE upgraph_http_requests_total counter") {
		t.Error("no TYPE line")
	}
	if res, _ := get(t, h, "/metrics", nil); res.Header.Get("Content-Type") != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("metrics Content-Type %q", res.Header.Get("Content-Type"))
	}
}

func merge(hs ...http.Header) http.Header {
	out := http.Header{}
	for _, h := range hs {
		for k, vs := range h {
			out[k] = append(out[k], vs...)
		}
	}
	return out
}
