package site_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
)

// waitFor polls cond until it holds, failing the test after a bound that
// only a broken watcher reaches.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// watched renders the full demo tree into a fresh dir and watches it.
func watched(t *testing.T, interval time.Duration) (dir string, h *site.Handler, srv http.Handler) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "tree")
	if err := renderDemo(dir, generator.RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	h = site.NewHandler(site.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := h.Watch(ctx, dir, interval); err != nil {
		t.Fatalf("Watch: %v", err)
	}
	return dir, h, site.CORS(h)
}

func fetch(t *testing.T, h http.Handler, target string) (int, string) {
	t.Helper()
	res, b := get(t, h, target, nil)
	return res.StatusCode, string(b)
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWatchReload: a new tree swapped in is served; a broken one is
// skipped and the previous generation keeps being served; a fixed one is
// picked up again.
func TestWatchReload(t *testing.T) {
	dir, h, srv := watched(t, 20*time.Millisecond)
	if code, _ := fetch(t, srv, "/readyz"); code != 200 {
		t.Fatalf("not ready after Watch: %d", code)
	}
	fast := readFile(t, dir, "graph/amd64/fast-4.16.json")
	stable := readFile(t, dir, "graph/amd64/stable-4.16.json")
	if _, b := fetch(t, srv, "/graph?channel=fast-4.16"); b != fast {
		t.Fatal("first generation: fast-4.16 not served")
	}
	if _, b := fetch(t, srv, "/graph?channel=stable-4.16"); b != stable {
		t.Fatal("first generation: stable-4.16 not served")
	}
	first := h.Generation().ID

	// Regenerate with the stable channels only: fast-4.16 goes.
	if err := renderDemo(dir, generator.RenderOptions{Channels: regexp.MustCompile("stable"), GeneratedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the stable-only tree", func() bool {
		_, b := fetch(t, srv, "/graph?channel=fast-4.16")
		return b == emptyGraph
	})
	second := h.Generation().ID
	if second == first {
		t.Fatal("generation ID unchanged")
	}
	if _, b := fetch(t, srv, "/graph?channel=stable-4.16"); b != readFile(t, dir, "graph/amd64/stable-4.16.json") {
		t.Error("second generation: stable-4.16 not served")
	}
	// A request can see the new generation a moment before the watcher
	// counts its reload.
	var text string
	waitFor(t, "2 reloads counted", func() bool {
		text = metricsText(t, srv)
		return metric(text, `upgraph_generation_reloads_total{result="ok"}`) >= 2
	})
	if got := metric(text, `upgraph_generation_reloads_total{result="ok"}`); got != 2 {
		t.Errorf(`reloads ok = %v, want 2`, got)
	}
	if !regexp.MustCompile(`upgraph_generation_info\{id="` + regexp.QuoteMeta(second) + `"\} 1`).MatchString(text) {
		t.Errorf("generation info does not name %s", second)
	}
	stable2 := readFile(t, dir, "graph/amd64/stable-4.16.json")

	// A broken tree, swapped in atomically: index.json names a file that
	// does not exist.
	swapInBrokenTree(t, dir, srv)
	if h.Generation().ID != second {
		t.Fatal("the broken tree replaced the generation")
	}
	if code, b := fetch(t, srv, "/graph?channel=stable-4.16"); code != 200 || b != stable2 {
		t.Errorf("previous generation not served after a broken tree: %d %.100s", code, b)
	}
	if code, _ := fetch(t, srv, "/readyz"); code != 200 {
		t.Errorf("not ready after a broken tree: %d", code)
	}
	// A good tree again.
	if err := renderDemo(dir, generator.RenderOptions{GeneratedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the repaired tree", func() bool {
		_, b := fetch(t, srv, "/graph?channel=fast-4.16")
		return b == readFile(t, dir, "graph/amd64/fast-4.16.json")
	})
	waitFor(t, "3 reloads counted", func() bool {
		text = metricsText(t, srv)
		return metric(text, `upgraph_generation_reloads_total{result="ok"}`) >= 3
	})
	if got := metric(text, `upgraph_generation_reloads_total{result="ok"}`); got != 3 {
		t.Errorf(`reloads ok = %v, want 3`, got)
	}
	// The broken tree was tried once, not at every poll while it stayed.
	if got := metric(text, `upgraph_generation_reloads_total{result="error"}`); got != 1 {
		t.Errorf(`reloads error = %v, want 1`, got)
	}
}

// TestWatchBrokenTreeUncachedFile: after a broken tree is refused, the
// previous generation keeps being served (watch.go's contract), files not
// yet requested included.
func TestWatchBrokenTreeUncachedFile(t *testing.T) {
	dir, h, srv := watched(t, 20*time.Millisecond)
	want := readFile(t, dir, "graph/arm64/stable-4.16/4.15.1.json")
	id := h.Generation().ID
	swapInBrokenTree(t, dir, srv)
	if h.Generation().ID != id {
		t.Fatal("generation replaced")
	}
	if code, b := fetch(t, srv, "/graph?arch=arm64&channel=stable-4.16&version=4.15.1"); code != 200 || b != want {
		t.Errorf("previous generation, uncached file: got %d %.120s", code, b)
	}
}

// TestWatchIdenticalRegeneration: regenerating the same tree (same inputs,
// same generatedAt: deterministic output, e.g. SOURCE_DATE_EPOCH) swaps in
// a new directory with the same index.json; every file must still be
// served.
func TestWatchIdenticalRegeneration(t *testing.T) {
	// No poll during the test: a request for a file that is gone makes the
	// handler look for a new generation at once, which is deterministic.
	dir, _, srv := watched(t, time.Hour)
	if code, _ := fetch(t, srv, "/graph?channel=fast-4.16"); code != 200 {
		t.Fatal(code)
	}
	index := readFile(t, dir, "index.json")
	if err := renderDemo(dir, generator.RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	if readFile(t, dir, "index.json") != index {
		t.Fatal("the regenerated tree is not identical")
	}
	for _, tc := range []struct{ query, file string }{
		{"channel=stable-4.15&version=4.15.2", "graph/amd64/stable-4.15/4.15.2.json"},
		{"channel=candidate-4.16&arch=arm64", "graph/arm64/candidate-4.16.json"},
		{"channel=stable-4.15&version=4.15.2", "graph/amd64/stable-4.15/4.15.2.json"},
	} {
		want := readFile(t, dir, tc.file)
		if code, b := fetch(t, srv, "/graph?"+tc.query); code != 200 || b != want {
			t.Errorf("%s after an identical regeneration: got %d %.120s", tc.query, code, b)
		}
	}
}

// TestWatchSnapshotOutlivesSwap: until the next poll, the loaded
// generation keeps answering whole, uncached files included, from its
// snapshot, although generate has swapped a new tree into the directory and
// deleted the old one.
func TestWatchSnapshotOutlivesSwap(t *testing.T) {
	dir, h, srv := watched(t, time.Hour) // no poll during the test
	first := h.Generation().ID
	want := readFile(t, dir, "graph/arm64/stable-4.16/4.15.1.json")
	if err := renderDemo(dir, generator.RenderOptions{Channels: regexp.MustCompile("stable"), GeneratedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	code, b := fetch(t, srv, "/graph?channel=stable-4.16&arch=arm64&version=4.15.1")
	if code != 200 || b != want {
		t.Fatalf("uncached file of the loaded generation after a swap: %d %.120s", code, b)
	}
	if h.Generation().ID != first {
		t.Error("generation changed without a poll")
	}
	if _, b := fetch(t, srv, "/graph?channel=fast-4.16"); b == emptyGraph {
		t.Error("the loaded generation lost fast-4.16")
	}
}

// TestWatchErrors: Watch returns the first load's error.
func TestWatchErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	empty := t.TempDir()
	broken := filepath.Join(t.TempDir(), "tree")
	if err := renderDemo(broken, generator.RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(broken, "graph", "amd64", "fast-4.16.json")); err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(t.TempDir(), "tree")
	if err := renderDemo(truncated, generator.RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(truncated, "graph", "amd64", "stable-4.15.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	badIndex := t.TempDir()
	if err := os.WriteFile(filepath.Join(badIndex, "index.json"), []byte(`{"format":1,"files":{"../x":{"sha256":"","size":0}},"generatedAt":"2026-01-01T00:00:00Z"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, dir := range map[string]string{
		"missing dir":     filepath.Join(empty, "nope"),
		"empty dir":       empty,
		"missing file":    broken,
		"wrong size":      truncated,
		"escaping index":  badIndex,
		"file, not a dir": filepath.Join(broken, "index.json"),
	} {
		h := site.NewHandler(site.Options{})
		if err := h.Watch(ctx, dir, time.Hour); err == nil {
			t.Errorf("%s: Watch succeeded", name)
		}
		if h.Generation() != nil {
			t.Errorf("%s: a generation is served", name)
		}
		if code, _ := fetch(t, h, "/readyz"); code != 503 {
			t.Errorf("%s: /readyz %d", name, code)
		}
		if _, err := site.Load(dir, nil); err == nil {
			t.Errorf("%s: Load succeeded", name)
		}
	}
}

// TestWatchConcurrent: requests racing with reloads always get a complete
// graph of one generation or the other (run with -race for the data races).
func TestWatchConcurrent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tree")
	if err := renderDemo(dir, generator.RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	h := site.NewHandler(site.Options{CacheBytes: 1}) // no caching: every request reads the tree
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := h.Watch(ctx, dir, 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	srv := site.CORS(h)
	queries := []string{
		"channel=stable-4.16", "channel=stable-4.16&version=4.15.1", "channel=stable-4.15&arch=arm64&version=4.15.0",
		"channel=fast-4.16", "channel=fast-4.16&version=4.16.0", "channel=candidate-4.16&arch=arm64",
	}
	stop := make(chan struct{})
	errs := make(chan string, 100)
	done := make(chan struct{})
	const workers = 3
	for w := 0; w < workers; w++ {
		go func(w int) {
			defer func() { done <- struct{}{} }()
			for i := w; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				rec := serve(srv, "/graph", queries[i%len(queries)], nil)
				if rec.Code != 200 || !strings.HasPrefix(rec.Body.String(), `{"version":1,"nodes":[`) {
					select {
					case errs <- queries[i%len(queries)] + ": " + rec.Body.String():
					default:
					}
				}
			}
		}(w)
	}
	for i := 0; i < 3; i++ {
		opts := generator.RenderOptions{GeneratedAt: time.Date(2026, 4, 1+i, 0, 0, 0, 0, time.UTC)}
		if i%2 == 0 {
			opts.Channels = regexp.MustCompile("stable")
		}
		if err := renderDemo(dir, opts); err != nil {
			t.Fatal(err)
		}
		id := readFile(t, dir, "index.json")
		waitFor(t, "the new generation", func() bool {
			return h.Generation().ID == manifest.Digest([]byte(id))
		})
	}
	close(stop)
	for w := 0; w < workers; w++ {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Errorf("during reloads: %s", e)
	}
}

// swapInBrokenTree swaps a tree whose index.json names a missing file into
// dir, atomically, and waits until the watcher has refused it.
func swapInBrokenTree(t *testing.T, dir string, srv http.Handler) {
	t.Helper()
	if err := rewriteTree(dir, nil, func(m *manifest.Manifest) {
		m.Files["graph/amd64/missing.json"] = manifest.File{SHA256: manifest.SHA256(nil), Size: 10}
	}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the broken tree to be refused", func() bool {
		return metric(metricsText(t, srv), `upgraph_generation_reloads_total{result="error"}`) == 1
	})
}
