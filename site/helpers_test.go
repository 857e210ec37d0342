package site_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// Media types and bodies the tests compare against.
const (
	mediaJSON  = "application/json"
	mediaV1    = "application/vnd.redhat.cincinnati.v1+json"
	emptyGraph = `{"version":1,"nodes":[],"edges":[],"conditionalEdges":[]}`
	body406    = `{"kind":"invalid_content_type","value":"invalid Content-Type requested"}`
	bodyNoChan = `{"kind":"missing_params","value":"mandatory client parameters missing: channel"}`
	// A signature the test trees carry (the generator writes none yet).
	sigDigest = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	sigName   = "signatures/sha256=" + sigDigest + "/signature-1"
	sigBody   = "not really a GPG signature\x00\x01\x02"
)

var (
	// treeDir holds the demo tree (plus one signature) shared by the
	// read-only tests; built once in TestMain.
	treeDir string

	builtOnce sync.Once
	built     *generator.Built
	builtErr  error
)

func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "upgraph-site-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	treeDir = filepath.Join(tmp, "tree")
	if err := renderDemo(treeDir, generator.RenderOptions{}); err == nil {
		err = addFiles(treeDir, map[string][]byte{sigName: []byte(sigBody)})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "building the demo tree:", err)
		os.RemoveAll(tmp)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// demoBuilt builds the demo graph once per process.
func demoBuilt() (*generator.Built, error) {
	builtOnce.Do(func() {
		built, builtErr = generator.Build(context.Background(),
			&source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
			upgraph.DemoGraphData(),
			generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	})
	return built, builtErr
}

// renderDemo renders the demo graph into dir with the real generator and
// store (an atomic swap when dir already holds a tree).
func renderDemo(dir string, opts generator.RenderOptions) error {
	b, err := demoBuilt()
	if err != nil {
		return err
	}
	opts.Store = writer.DirStore{Dir: dir}
	if opts.GeneratedAt.IsZero() {
		opts.GeneratedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	}
	opts.Workers = 2
	// The API tests pin what a tree without the viewer serves (nothing but
	// the API); static_test.go adds a viewer of its own.
	opts.NoViewer = true
	// As upgraph generate writes it: with the gzip copies.
	opts.Precompress = true
	_, err = generator.Render(context.Background(), b, opts)
	return err
}

// rewriteTree commits, through writer.DirStore (so the tree is swapped in
// atomically), a copy of the tree at dir with extra files added and the
// manifest changed by edit (which may be nil). index.json records the
// extra files unless edit removes them.
func rewriteTree(dir string, extra map[string][]byte, edit func(*manifest.Manifest)) error {
	m, err := manifest.Read(dir)
	if err != nil {
		return err
	}
	files := map[string][]byte{}
	for name := range m.Files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return err
		}
		files[name] = data
	}
	for name, data := range extra {
		files[name] = data
		m.Files[name] = manifest.File{SHA256: manifest.SHA256(data), Size: int64(len(data))}
	}
	if edit != nil {
		edit(m)
	}
	index, err := m.Encode()
	if err != nil {
		return err
	}
	files[manifest.FileName] = index
	return commitTree(dir, files)
}

// commitTree writes files into dir through writer.DirStore: an atomic
// swap, unchanged files hard-linked from the tree it replaces, as
// generate does.
func commitTree(dir string, files map[string][]byte) error {
	ctx := context.Background()
	st, err := writer.DirStore{Dir: dir}.Begin(ctx)
	if err != nil {
		return err
	}
	for name, data := range files {
		if err := st.Put(ctx, name, data); err != nil {
			st.Abort()
			return err
		}
	}
	return st.Commit(ctx)
}

func addFiles(dir string, extra map[string][]byte) error { return rewriteTree(dir, extra, nil) }

// newHandler serves the generation at dir (the shared tree when dir is "").
func newHandler(t testing.TB, dir string, opts site.Options) *site.Handler {
	t.Helper()
	if dir == "" {
		dir = treeDir
	}
	g, err := site.Load(dir, nil)
	if err != nil {
		t.Fatalf("site.Load(%s, nil): %v", dir, err)
	}
	t.Cleanup(func() { g.Close() })
	h := site.NewHandler(opts)
	h.SetGeneration(g)
	return h
}

// treeFile returns a file of the shared tree.
func treeFile(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(treeDir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// client sends requests either straight to a handler through an
// httptest.ResponseRecorder or over TCP to a real httptest server on
// 127.0.0.1. Both must give the same answers.
type client struct {
	name string
	h    http.Handler
	srv  *httptest.Server
	c    *http.Client
}

// clients returns a recorder client and a real-server client for h.
func clients(t *testing.T, h http.Handler) []*client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Fatalf("test server listens on %s, want 127.0.0.1", srv.URL)
	}
	// No transparent gzip: the tests look at the bytes on the wire.
	tr := &http.Transport{DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return []*client{
		{name: "recorder", h: h},
		{name: "server", srv: srv, c: &http.Client{Transport: tr}},
	}
}

// do sends method target (a request-URI, query included verbatim) with the
// given headers and returns the response and its whole body.
func (c *client) do(t testing.TB, method, target string, hdr http.Header) (*http.Response, []byte) {
	t.Helper()
	var res *http.Response
	if c.srv == nil {
		req := httptest.NewRequest(method, target, nil)
		for k, vs := range hdr {
			req.Header[k] = vs
		}
		rec := httptest.NewRecorder()
		c.h.ServeHTTP(rec, req)
		res = rec.Result()
	} else {
		req, err := http.NewRequest(method, c.srv.URL+target, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, vs := range hdr {
			req.Header[k] = vs
		}
		res, err = c.c.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, target, err)
		}
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

func get(t testing.TB, h http.Handler, target string, hdr http.Header) (*http.Response, []byte) {
	t.Helper()
	return (&client{name: "recorder", h: h}).do(t, http.MethodGet, target, hdr)
}

// hdr builds a header from key, value pairs; a key may repeat.
func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h[http.CanonicalHeaderKey(kv[i])] = append(h[http.CanonicalHeaderKey(kv[i])], kv[i+1])
	}
	return h
}

// errBody is an error body as upstream writes it.
func errBody(kind, value string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // upstream (serde_json) leaves <, > and & as they are
	enc.Encode(map[string]string{"kind": kind, "value": value})
	return strings.TrimSuffix(b.String(), "\n")
}

// checkGraphBody checks a 200 graph body: valid JSON, version 1, all keys.
func checkGraphBody(t testing.TB, body []byte) {
	t.Helper()
	var g struct {
		Version          *int              `json:"version"`
		Nodes            []json.RawMessage `json:"nodes"`
		Edges            [][2]int          `json:"edges"`
		ConditionalEdges []json.RawMessage `json:"conditionalEdges"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&g); err != nil {
		t.Fatalf("graph body is not a graph: %v\n%.300s", err, body)
	}
	if g.Version == nil || *g.Version != 1 || g.Nodes == nil || g.Edges == nil || g.ConditionalEdges == nil {
		t.Fatalf("graph body lacks version 1 or a list: %.300s", body)
	}
}

// checkErrorBody checks a {"kind","value"} body, keys in that order.
func checkErrorBody(t testing.TB, body []byte) (kind, value string) {
	t.Helper()
	var e struct{ Kind, Value string }
	if err := json.Unmarshal(body, &e); err != nil || !bytes.HasPrefix(body, []byte(`{"kind":"`)) || !bytes.Contains(body, []byte(`","value":"`)) {
		t.Fatalf("error body is not {\"kind\",\"value\"}: %v\n%.300q", err, body)
	}
	var all map[string]any
	json.Unmarshal(body, &all)
	if len(all) != 2 || e.Kind == "" {
		t.Fatalf("error body has other keys or no kind: %.300q", body)
	}
	return e.Kind, e.Value
}

// metric returns the value of the sample named exactly series (name plus
// labels) in a Prometheus text exposition, or -1.
func metric(text, series string) float64 {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`)
	m := re.FindStringSubmatch(text)
	if m == nil {
		return -1
	}
	var v float64
	fmt.Sscan(m[1], &v)
	return v
}

func metricsText(t testing.TB, h http.Handler) string {
	t.Helper()
	res, body := get(t, h, "/metrics", nil)
	if res.StatusCode != 200 {
		t.Fatalf("/metrics: %d", res.StatusCode)
	}
	return string(body)
}

func itoa(n int) string { return strconv.Itoa(n) }

func fmtSscan(s string, v *float64) (int, error) { return fmt.Sscan(s, v) }

// walkTree lists every regular file of a tree, slash-separated.
func walkTree(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
