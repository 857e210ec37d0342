package publish_test

import (
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/site/publish"
	"github.com/upgraph/upgraph/tree/manifest"
)

// TestFollowShrinkGuard: serve --s3 with its shrink guard. A published
// generation that drops most channels, or that is empty, is refused
// (not even downloaded, logged with what would go, counted) and the
// previous one stays served, also at later polls; a good generation
// after it is served; without a guard (--force) a shrink is served.
func TestFollowShrinkGuard(t *testing.T) {
	e := newEnv(t)
	dir, bucket, _ := e.published(t)
	want := serveLocal(t, dir, graphQuery)
	shrunk := generate(t, spec{channels: "^stable"})
	forced := e.opts(shrunk, bucket)
	forced.Force = true // publish's own guard would refuse it too

	follow := func(t *testing.T, guard *site.Guard) (*site.Handler, *publish.Follower, *syncLog, *env) {
		logs := &syncLog{}
		fe := e.fork(t)
		h := site.NewHandler(site.Options{Guard: guard, Logger: slog.New(slog.NewTextHandler(logs, nil))})
		f, err := publish.Follow(t.Context(), h, publish.FollowOptions{
			Client: fe.client, Bucket: bucket, Prefix: prefix, Interval: 10 * time.Millisecond, RetryAfter: 10 * time.Millisecond,
			TempDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(logs, nil)),
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close(); h.Close() })
		return h, f, logs, fe
	}
	answer := func(t *testing.T, h http.Handler) string {
		code, body := get(t, h, graphQuery)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %s", graphQuery, code, body)
		}
		return body
	}
	waitLog := func(t *testing.T, logs *syncLog, from int, what string) {
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(logs.String()[from:], what) {
			if time.Now().After(deadline) {
				t.Fatalf("no %q logged after 20 s:\n%s", what, logs)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	h, f, logs, fe := follow(t, &site.Guard{ShrinkThreshold: manifest.DefaultShrinkThreshold})
	first := f.ETag()
	fe.proxy.Reset()
	before := len(logs.String())
	e.publish(t, forced)
	waitLog(t, logs, before, "new generation refused")
	for _, w := range []string{"channels 6 → 2, 4 dropped (66.7%): candidate-4.15, candidate-4.16, fast-4.15, fast-4.16"} {
		if !strings.Contains(logs.String()[before:], w) {
			t.Errorf("the refusal's log lacks %q:\n%s", w, logs.String()[before:])
		}
	}
	// More polls see the same ETag: refused once, not fetched again.
	settled := len(fe.proxy.Requests())
	deadline := time.Now().Add(20 * time.Second)
	for len(fe.proxy.Requests()) < settled+5 {
		if time.Now().After(deadline) {
			t.Fatal("the follower stopped polling")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := answer(t, h); got != want || f.ETag() != first {
		t.Errorf("after a refused shrink: ETag %q (was %q), fast-4.16:\n%.200s", f.ETag(), first, got)
	}
	if n := strings.Count(logs.String(), "new generation refused"); n != 1 {
		t.Errorf("refused %d times, want once for one published generation:\n%s", n, logs)
	}
	if gets := slices.DeleteFunc(treePaths(fe.proxy.Keys(s3test.GET)), func(p string) bool { return p == manifest.FileName }); len(gets) != 0 {
		t.Errorf("the refused generation was downloaded: %v", gets)
	}
	if !regexp.MustCompile(`(?m)^upgraph_generations_refused_total\{reason="shrink"\} 1$`).MatchString(metricsOf(t, h)) {
		t.Errorf("refusal not counted:\n%s", metricsOf(t, h))
	}

	// An empty generation is refused too. Its index.json keeps the files
	// of the one published, which a publish compares with what it has.
	m, err := manifest.Read(shrunk)
	if err != nil {
		t.Fatal(err)
	}
	m.Channels, m.Graphs, m.Counts = nil, nil, manifest.Counts{}
	m.GeneratedAt = "2026-02-03T04:05:06Z"
	index, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	before = len(logs.String())
	e.srv.Put(t, bucket, key(manifest.FileName), index)
	waitLog(t, logs, before, "no release, no channel, no per-version graph")

	// The whole tree again, changed: served.
	changed := generate(t, spec{sigs: []string{"sig-a"}, edit: setURL("4.16.1+amd64.json", "https://example.com/changed")})
	e.publish(t, e.opts(changed, bucket))
	wantChanged := serveLocal(t, changed, graphQuery)
	deadline = time.Now().Add(20 * time.Second)
	for answer(t, h) != wantChanged {
		if time.Now().After(deadline) {
			t.Fatalf("the good generation was not served after 20 s:\n%s", logs)
		}
		time.Sleep(10 * time.Millisecond)
	}

	// Without a guard, a shrink is served.
	h2, _, logs2, _ := follow(t, nil)
	e.publish(t, forced)
	deadline = time.Now().Add(20 * time.Second)
	for answer(t, h2) == wantChanged {
		if time.Now().After(deadline) {
			t.Fatalf("without a guard, the shrunk generation was not served after 20 s:\n%s", logs2)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := answer(t, h2); got != manifest.EmptyGraph {
		t.Errorf("without a guard, fast-4.16 after the shrink: %.200s, want the empty graph", got)
	}
}

func metricsOf(t *testing.T, h http.Handler) string {
	t.Helper()
	_, body := get(t, h, "/metrics")
	return body
}
