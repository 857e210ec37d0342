package edge

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/blang/semver/v4"

	"github.com/upgraph/upgraph/internal/cvo"
	"github.com/upgraph/upgraph/tree/manifest"
)

// nodeBinary finds Node.js, which CI provides; its absence is a failure.
func nodeBinary(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: run .ci/run, which installs it (apt-get install nodejs)")
	}
	return p
}

// TestCloudFrontNode runs the function's own tests with Node's test runner.
func TestCloudFrontNode(t *testing.T) {
	out, err := exec.Command(nodeBinary(t), "--test", "cloudfront.test.mjs").CombinedOutput()
	if err != nil {
		t.Fatalf("node --test cloudfront.test.mjs: %v\n%s", err, out)
	}
	t.Logf("%s", lastLines(out, 8))
}

func TestCloudFrontFunction(t *testing.T) {
	src, err := os.ReadFile("cloudfront.js")
	if err != nil {
		t.Fatal(err)
	}
	if CloudFrontFunction() != string(src) {
		t.Error("CloudFrontFunction differs from cloudfront.js")
	}
	if len(src) > CloudFrontMaxSize {
		t.Errorf("cloudfront.js has %d bytes; CloudFront accepts at most %d", len(src), CloudFrontMaxSize)
	}
	if !strings.Contains(string(src), "\nfunction handler(event) {") {
		t.Error("no top-level handler(event)")
	}
}

// cfEvent is a viewer-request event as testdata/cfrun.cjs takes it.
type cfEvent struct {
	Raw     *string   `json:"raw"`
	Request cfRequest `json:"request"`
}

type cfRequest struct {
	Method      string                    `json:"method"`
	URI         string                    `json:"uri"`
	Querystring map[string]cfValue        `json:"querystring"`
	Headers     map[string]cfValue        `json:"headers"`
	Cookies     map[string]map[string]any `json:"cookies"`
}

type cfValue struct {
	Value      string    `json:"value"`
	MultiValue []cfValue `json:"multiValue,omitempty"`
}

// cfResult is a request (StatusCode 0) or a synthetic response.
type cfResult struct {
	StatusCode  int                `json:"statusCode"`
	Headers     map[string]cfValue `json:"headers"`
	Body        *struct{ Data string }
	URI         string         `json:"uri"`
	Querystring map[string]any `json:"querystring"`
}

// runCloudFront runs the function on events in one node process.
func runCloudFront(t testing.TB, events []cfEvent) []cfResult {
	t.Helper()
	in, err := json.Marshal(events)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nodeBinary(t), filepath.Join("testdata", "cfrun.cjs"), "cloudfront.js")
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

// newEvent builds the event CloudFront passes for method and target
// (path and raw query) with headers ("Name: value").
func newEvent(method, target string, header ...string) cfEvent {
	path, query, hasQuery := strings.Cut(target, "?")
	ev := cfEvent{Request: cfRequest{Method: method, URI: path, Querystring: map[string]cfValue{},
		Headers: map[string]cfValue{}, Cookies: map[string]map[string]any{}}}
	if hasQuery {
		ev.Raw = &query
	}
	for _, h := range header {
		k, v, _ := strings.Cut(h, ":")
		k, v = strings.ToLower(k), strings.TrimSpace(v)
		if old, ok := ev.Request.Headers[k]; ok {
			if old.MultiValue == nil {
				old.MultiValue = []cfValue{{Value: old.Value}}
			}
			old.MultiValue = append(old.MultiValue, cfValue{Value: v})
			ev.Request.Headers[k] = old
		} else {
			ev.Request.Headers[k] = cfValue{Value: v}
		}
	}
	return ev
}

// cfDifferences are the table's requests CloudFront answers differently,
// as README.md documents, with what it serves instead.
var cfDifferences = map[string]string{
	// A version missing from the channel: the empty graph, not the channel
	// graph; the cluster's answer is the same (checked below).
	"unknown version":            emptyGraphPath,
	"version of another channel": emptyGraphPath,
	// Other paths reach S3 as they are: existing objects are served, and
	// missing ones get the custom error response.
	"file path":      "graph/amd64/stable-4.16.json",
	"index":          manifest.FileName,
	"unknown path":   emptyGraphPath,
	"trailing slash": emptyGraphPath,
	"double slash":   emptyGraphPath,
	"prefix only":    emptyGraphPath,
}

const emptyGraphPath = manifest.EmptyGraphPath

// TestCloudFrontMatchesGoHandler runs the function on the nginx comparison
// table and serves its rewritten URIs from the tree as S3 plus the custom
// error response would, and compares with the Go handler.
func TestCloudFrontMatchesGoHandler(t *testing.T) {
	dir := demoTree(t)
	goURL := startGo(t, dir)
	var reqs []request
	var events []cfEvent
	for _, rq := range equivalent {
		method := rq.method
		if method == "" {
			method = http.MethodGet
		}
		if method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions {
			continue // the cache behaviour lets only these reach the function
		}
		reqs = append(reqs, rq)
		events = append(events, newEvent(method, rq.target, rq.header...))
	}
	for i, res := range runCloudFront(t, events) {
		rq, method := reqs[i], events[i].Request.Method
		t.Run(rq.name, func(t *testing.T) {
			want := fetch(t, noGzip, method, goURL+rq.target, rq.header...)
			if res.StatusCode != 0 { // a synthetic response
				var body string
				if res.Body != nil {
					body = res.Body.Data
				}
				if res.StatusCode != want.status || body != string(want.body) {
					t.Errorf("CloudFront %d %s; Go %d %s", res.StatusCode, body, want.status, want.body)
				}
				for _, h := range []string{"Content-Type", "Vary", "Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Allow", "X-Content-Type-Options"} {
					if got := res.Headers[strings.ToLower(h)].Value; got != want.header.Get(h) {
						t.Errorf("%s: CloudFront %q, Go %q", h, got, want.header.Get(h))
					}
				}
				return
			}
			object := strings.TrimPrefix(res.URI, "/")
			served, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(object)))
			if err != nil { // S3 403/404 → the custom error response
				object = emptyGraphPath
				served = []byte(manifest.EmptyGraph)
			}
			if isGraphRoute(rq.target) && len(res.Querystring) != 0 {
				t.Errorf("query string kept: %v", res.Querystring)
			}
			if method == http.MethodHead {
				served = nil
			}
			if doc, ok := cfDifferences[rq.name]; ok {
				if object != doc {
					t.Errorf("CloudFront serves %s, documented %s", object, doc)
				}
				return
			}
			if want.status != 200 || !bytes.Equal(served, want.body) {
				t.Errorf("CloudFront serves %s (%d bytes); Go answers %d %.200s", object, len(served), want.status, want.body)
			}
		})
	}
}

// TestCloudFrontUnknownVersion checks the documented difference: a version
// missing from the channel gets the empty graph, and a cluster reads the
// same answer from it as from the Go handler's channel graph.
func TestCloudFrontUnknownVersion(t *testing.T) {
	goURL := startGo(t, demoTree(t))
	for _, tc := range []struct{ channel, version string }{{"stable-4.16", "9.9.9"}, {"stable-4.15", "4.16.2"}} {
		target := "/api/upgrades_info/v1/graph?arch=amd64&channel=" + tc.channel + "&id=" + cvoID + "&version=" + tc.version
		want := fetch(t, noGzip, http.MethodGet, goURL+target, "Accept: application/json")
		v := semver.MustParse(tc.version)
		fromGo := cvo.Canonical(cvo.Updates(want.body, tc.channel, "amd64", "amd64", v))
		fromEmpty := cvo.Canonical(cvo.Updates([]byte(manifest.EmptyGraph), tc.channel, "amd64", "amd64", v))
		if !reflect.DeepEqual(fromGo, fromEmpty) || !strings.HasPrefix(fromGo.Error, "VersionNotFound") {
			t.Errorf("%s at %s: Go handler gives\n%s\nthe empty graph gives\n%s", tc.channel, tc.version, fromGo, fromEmpty)
		}
	}
}

// isGraphRoute mirrors the function's routes for the default prefixes.
func isGraphRoute(target string) bool {
	p, _, _ := strings.Cut(target, "?")
	switch p {
	case "/graph", "/v1/graph", "/api/upgrades_info/graph", "/api/upgrades_info/v1/graph":
		return true
	}
	return false
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
