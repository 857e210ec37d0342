package site_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/syncbuf"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
)

// emptyTree commits, into dir, a tree that gives clusters nothing: no
// release, channel or graph.
func emptyTree(t *testing.T, dir string) {
	t.Helper()
	if err := rewriteTree(dir, nil, func(m *manifest.Manifest) {
		m.Channels, m.Graphs, m.Counts = nil, nil, manifest.Counts{}
		m.GeneratedAt = "2026-07-01T00:00:00Z"
	}); err != nil {
		t.Fatal(err)
	}
}

// TestWatchShrinkGuard: with a guard, a regenerated tree that drops most
// channels, or that is empty, is refused (logged with what would go,
// counted) and the previous generation stays served; one within the
// threshold is served; without a guard (serve --force) everything is.
func TestWatchShrinkGuard(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tree")
	if err := renderDemo(dir, generator.RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	logs := &syncbuf.Buffer{}
	h := site.NewHandler(site.Options{Guard: &site.Guard{ShrinkThreshold: manifest.DefaultShrinkThreshold}, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := h.Watch(ctx, dir, 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := site.CORS(h)
	first := h.Generation().ID
	fast := readFile(t, dir, "graph/amd64/fast-4.16.json")
	refused := func(n float64) {
		t.Helper()
		waitFor(t, "the refusal", func() bool {
			return metric(metricsText(t, srv), `upgraph_generations_refused_total{reason="shrink"}`) == n
		})
		if h.Generation().ID != first {
			t.Fatal("a refused generation is served")
		}
		if code, b := fetch(t, srv, "/graph?channel=fast-4.16"); code != 200 || b != fast {
			t.Fatalf("after a refusal: %d %.100s, want the previous generation's fast-4.16", code, b)
		}
	}

	// Four of the six channels go.
	if err := renderDemo(dir, generator.RenderOptions{Channels: regexp.MustCompile("^stable"), GeneratedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	refused(1)
	for _, want := range []string{"refused", "channels 6 → 2, 4 dropped (66.7%): candidate-4.15, candidate-4.16, fast-4.15, fast-4.16", "--force"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the refusal's log lacks %q:\n%s", want, logs)
		}
	}
	emptyTree(t, dir)
	refused(2)
	if !strings.Contains(logs.String(), "no release, no channel, no per-version graph") {
		t.Errorf("the empty generation's refusal does not say what it lacks:\n%s", logs)
	}

	// The whole tree again, a newer one: served.
	if err := renderDemo(dir, generator.RenderOptions{GeneratedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	index := readFile(t, dir, manifest.FileName)
	waitFor(t, "the whole tree", func() bool { return h.Generation().ID == manifest.Digest([]byte(index)) })
}

// TestOfferFirstAndEmpty: the first generation is never compared, and an
// empty one is served with a warning (clusters get what there is);
// without a guard (serve --force) every generation that loads is served,
// with one an empty generation never replaces a served one.
func TestOfferFirstAndEmpty(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tree")
	if err := renderDemo(dir, generator.RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	emptyTree(t, dir)
	for _, guard := range []*site.Guard{{ShrinkThreshold: 0.1}, nil} {
		logs := &syncbuf.Buffer{}
		h := site.NewHandler(site.Options{Guard: guard, Logger: slog.New(slog.NewTextHandler(logs, nil))})
		ctx, cancel := context.WithCancel(context.Background())
		if err := h.Watch(ctx, dir, 5*time.Millisecond); err != nil {
			t.Fatalf("guard %v: an empty first generation: %v", guard, err)
		}
		if !strings.Contains(logs.String(), "serving an empty generation") {
			t.Errorf("guard %v: no warning for an empty first generation:\n%s", guard, logs)
		}
		if code, b := fetch(t, site.CORS(h), "/graph?channel=fast-4.16"); code != 200 || b != emptyGraph {
			t.Errorf("guard %v: %d %s", guard, code, b)
		}
		cancel()
		h.Close()
	}

	h := site.NewHandler(site.Options{})
	g, err := site.Load(treeDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Offer(g); err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	small, err := site.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Offer(small); err != nil || h.Generation() != small {
		t.Errorf("without a guard, an empty generation after a full one: %v", err)
	}
	guarded := site.NewHandler(site.Options{Guard: &site.Guard{}})
	defer guarded.Close()
	full, err := site.Load(treeDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	guarded.SetGeneration(full)
	empty, err := site.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := guarded.Offer(empty); !errors.Is(err, manifest.ErrEmpty) || guarded.Generation() != full {
		t.Errorf("with a guard, an empty generation after a full one: %v", err)
	}
	if s := snapshots(t, dir); len(s) != 1 {
		t.Errorf("a refused generation's snapshot is left: %v", s)
	}
}

// TestWatchRefusesNonPositiveInterval: an error, not a panic, before
// anything is loaded.
func TestWatchRefusesNonPositiveInterval(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		h := site.NewHandler(site.Options{})
		err := h.Watch(context.Background(), treeDir, d)
		if err == nil || !strings.Contains(err.Error(), "interval") {
			t.Errorf("Watch(%v) = %v, want an error about the interval", d, err)
		}
		if h.Generation() != nil {
			t.Errorf("Watch(%v) loaded a generation", d)
		}
	}
}
