package service

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/internal/bundletest"
	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/site"
)

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pushDemo pushes the demo releases to repo as release images, one tag
// per release, as the registry's release scrape reads them.
func pushDemo(t *testing.T, repo string) {
	t.Helper()
	base := rt.FillerLayer(t, 1, 2048, false)
	err := fs.WalkDir(upgraph.DemoReleases(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(upgraph.DemoReleases(), p)
		if err != nil {
			return err
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			return err
		}
		arch := doc["arch"].(string)
		delete(doc, "arch")
		delete(doc, "payload")
		tag := strings.ReplaceAll(doc["version"].(string), "+", "_") + "-" + arch
		rt.Push(t, repo+":"+tag, rt.Image(t, arch, arch == "arm64", base, rt.MetadataLayer(t, doc)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// demoConfig pushes the demo releases to a real registry and returns the
// Config of a service that scrapes them, with graph-data gd and its data
// directory below work, refreshing every interval.
func demoConfig(t *testing.T, gd, work string, interval time.Duration) Config {
	t.Helper()
	reg := rt.Start(t)
	repo := reg.Host + "/ocp/release"
	pushDemo(t, repo)
	return Config{Releases: repo, GraphData: gd, Data: filepath.Join(work, "data"), Interval: interval,
		ShrinkThreshold: 0.1, Version: "test"}
}

// newTestService makes a Service on cfg as upgraph service does, serving
// through a site handler without a cache (closed at cleanup) and counting
// in fresh metrics.
func newTestService(t *testing.T, cfg Config) (*Service, *site.Handler, *Metrics) {
	t.Helper()
	h := site.NewHandler(site.Options{CacheBytes: -1})
	t.Cleanup(func() { h.Close() })
	m := NewMetrics()
	svc, err := New(cfg, h, m)
	if err != nil {
		t.Fatal(err)
	}
	return svc, h, m
}

// servedGraph is the graph h answers for query (channel=…&arch=…), and
// the answer's headers.
type servedGraph struct {
	Nodes []struct {
		Version string `json:"version"`
	} `json:"nodes"`
	Edges  [][2]int `json:"edges"`
	header http.Header
}

func getGraph(t *testing.T, h http.Handler, query string) servedGraph {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/graph?"+query, nil)
	req.Header.Set("Accept", "application/json")
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("/graph?%s: %d %s", query, rec.Code, rec.Body)
	}
	var g servedGraph
	if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil {
		t.Fatal(err)
	}
	g.header = rec.Header()
	return g
}

// versions are the versions h serves in channel for arch.
func versions(t *testing.T, h http.Handler, channel, arch string) []string {
	t.Helper()
	var out []string
	for _, n := range getGraph(t, h, "channel="+channel+"&arch="+arch).Nodes {
		out = append(out, n.Version)
	}
	slices.Sort(out)
	return out
}

// TestRefresh drives the service without the CLI, against a real
// registry: the first refresh generates and serves the tree, the next one
// with the same inputs changes nothing, a graph-data change generates
// again, and Loop refreshes every Interval until its context ends.
func TestRefresh(t *testing.T) {
	work := t.TempDir()
	gd := filepath.Join(work, "graph-data")
	bundletest.CopyTree(t, "../testdata/demo/graph-data", gd)
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")

	cfg := demoConfig(t, gd, work, 20*time.Millisecond)
	if err := os.MkdirAll(cfg.CacheDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	svc, h, m := newTestService(t, cfg)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	refresh := func(want string) {
		t.Helper()
		got, err := svc.Refresh(ctx)
		if got != want || err != nil {
			t.Fatalf("Refresh = %q, %v; want %q, no error", got, err, want)
		}
	}
	refresh(Generated)
	if h.Generation() == nil {
		t.Fatal("a generation was generated but none is served")
	}
	first := h.Generation().ID
	stable := versions(t, h, "stable-4.16", "amd64")
	if len(stable) == 0 || slices.Contains(stable, "4.16.2") {
		t.Fatalf("stable-4.16 serves %v: want releases, not 4.16.2 (graph-data leaves it out)", stable)
	}
	if _, err := os.Stat(filepath.Join(cfg.Data, StateFile)); err != nil {
		t.Errorf("no state file after a generation: %v", err)
	}

	refresh(Unchanged)
	if h.Generation().ID != first {
		t.Errorf("an unchanged refresh served another generation")
	}

	write(t, filepath.Join(gd, "channels/stable-4.16.yaml"), "name: stable-4.16\nversions:\n- 4.15.0\n- 4.15.1\n- 4.15.2\n- 4.16.0\n- 4.16.1\n- 4.16.2\n")
	refresh(Generated)
	if got := versions(t, h, "stable-4.16", "amd64"); !slices.Contains(got, "4.16.2") {
		t.Errorf("after graph-data added 4.16.2 to stable-4.16, it serves %v", got)
	}

	// A service made anew on the same data directory (a restart) finds
	// the inputs unchanged.
	again, _, _ := newTestService(t, cfg)
	if err := again.Watch(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := again.Refresh(ctx); got != Unchanged || err != nil {
		t.Errorf("after a restart, Refresh = %q, %v; want %q", got, err, Unchanged)
	}

	// Loop: refreshes until the context ends, each counted.
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.Loop(ctx)
	}()
	deadline := time.Now().Add(time.Minute)
	for {
		var b strings.Builder
		m.Write(&b)
		if strings.Contains(b.String(), `upgraph_refresh_total{result="unchanged"} 2`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Loop did not refresh twice:\n%s", b.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Loop did not return when its context ended")
	}
	var b strings.Builder
	m.Write(&b)
	for _, want := range []string{`upgraph_input_up{input="releases"} 1`, `upgraph_input_up{input="graph-data"} 1`, "upgraph_scrape_releases "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("metrics lack %q:\n%s", want, b.String())
		}
	}
}

// TestContentDigest: a directory input is compared by its files' names
// and bytes, not by their times, and a file input by its bytes.
func TestContentDigest(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "channels/a.yaml"), "name: a\n")
	write(t, filepath.Join(dir, "version"), "1\n")
	digest := func(p string) string {
		t.Helper()
		d, err := contentDigest(p)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	first := digest(dir)
	if !strings.HasPrefix(first, "sha256:") || len(first) != len("sha256:")+64 {
		t.Fatalf("digest %q", first)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, "version"), old, old)
	if got := digest(dir); got != first {
		t.Errorf("a touched file changed the digest")
	}
	steps := []struct {
		what   string
		change func()
	}{
		{"content", func() { write(t, filepath.Join(dir, "version"), "2\n") }},
		{"new file", func() { write(t, filepath.Join(dir, "channels/b.yaml"), "name: b\n") }},
		{"rename", func() { os.Rename(filepath.Join(dir, "channels/b.yaml"), filepath.Join(dir, "channels/c.yaml")) }},
		{"removal", func() { os.Remove(filepath.Join(dir, "channels/c.yaml")) }},
	}
	seen := map[string]string{first: "the start"}
	for _, s := range steps {
		s.change()
		d := digest(dir)
		if prev, ok := seen[d]; ok && s.what != "removal" {
			t.Errorf("after %s the digest is that of %s", s.what, prev)
		}
		seen[d] = s.what
	}
	if got := digest(dir); got == first {
		t.Errorf("content changed back to a different version, digest as at the start")
	}
	write(t, filepath.Join(dir, "version"), "1\n")
	if got := digest(dir); got != first {
		t.Errorf("the same files again, a different digest")
	}
	if _, err := contentDigest(filepath.Join(dir, "missing")); err == nil {
		t.Errorf("a missing input has a digest")
	}
	if a, b := digest(filepath.Join(dir, "version")), digest(filepath.Join(dir, "channels/a.yaml")); a == b {
		t.Errorf("two files with different bytes have one digest")
	}
}

// TestMemoryLimit: the cache plus room for a generation, capped
// below the container's limit.
func TestMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		max  string // memory.max, "" for no file
		want int64
	}{
		{"", 512<<20 + 128<<20 + 512<<20},
		{"max\n", 512<<20 + 128<<20 + 512<<20},
		{"1140850688\n", 1140850688 / 10 * 9}, // 1088Mi, the Deployment's
		{"8589934592\n", 512<<20 + 128<<20 + 512<<20},
	} {
		file := filepath.Join(dir, "memory.max")
		os.Remove(file)
		if c.max != "" {
			write(t, file, c.max)
		}
		if got := MemoryLimit(512<<20, file); got != c.want {
			t.Errorf("memory.max %q: %d, want %d", c.max, got, c.want)
		}
	}
}
