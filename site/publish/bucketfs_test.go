package publish_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/site/publish"
	"github.com/upgraph/upgraph/tools/airgap"
	"github.com/upgraph/upgraph/tools/diff"
	"github.com/upgraph/upgraph/tools/path"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// treeOpts reach s3:// trees on the test server, as the CLI's --endpoint
// and --path-style do.
func (e *env) treeOpts() tree.Options {
	return tree.Options{S3: s3tree.ClientOptions{
		Endpoint: e.srv.URL, PathStyle: true, Credentials: e.srv.Credentials(), MaxBackoff: 5 * time.Millisecond,
	}}
}

// published publishes the demo tree to a new bucket and returns the tree
// and its s3:// URL.
func (e *env) published(t testing.TB) (dir, bucket, url string) {
	t.Helper()
	dir = generate(t, spec{sigs: []string{"sig-a"}})
	bucket = e.srv.NewBucket(t)
	e.publish(t, e.opts(dir, bucket))
	return dir, bucket, "s3://" + bucket + "/" + prefix
}

func TestBucketFS(t *testing.T) {
	e := newEnv(t)
	dir, bucket, _ := e.published(t)
	b := s3tree.NewBucket(e.client, bucket, prefix)
	m, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{manifest.FileName}
	for p := range m.Files {
		names = append(names, p)
	}
	for _, p := range names {
		want, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		got, err := b.ReadFile(t.Context(), p)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("ReadFile(%s): %d bytes, %v; want the tree's %d", p, len(got), err, len(want))
		}
	}
	for _, p := range []string{"graph/none.json", "../x", "/abs"} {
		if _, err := b.ReadFile(t.Context(), p); err == nil {
			t.Errorf("ReadFile(%s): no error", p)
		}
	}
	if _, err := b.ReadFile(t.Context(), "graph/none.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing object: %v, want fs.ErrNotExist", err)
	}
	// A missing bucket is not a missing file.
	if _, err := s3tree.NewBucket(e.client, "no-such-bucket", prefix).ReadFile(t.Context(), manifest.FileName); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing bucket: %v, want an error other than fs.ErrNotExist", err)
	}
}

// TestBucketFSReaders: mirror --from, diff and path read s3:// as they
// read the tree published there.
func TestBucketFSReaders(t *testing.T) {
	e := newEnv(t)
	dir, _, url := e.published(t)
	ctx := t.Context()
	open := func(t *testing.T, loc string) *mirror.Source {
		t.Helper()
		s, err := mirror.OpenSource(ctx, loc, mirror.SourceOptions{Tree: e.treeOpts()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}

	t.Run("mirror", func(t *testing.T) {
		work := t.TempDir()
		fromDir, fromS3 := filepath.Join(work, "dir"), filepath.Join(work, "s3")
		if _, err := airgap.Mirror(ctx, airgap.Options{From: dir, Out: fromDir}); err != nil {
			t.Fatal(err)
		}
		if _, err := airgap.Mirror(ctx, airgap.Options{From: url, Out: fromS3, Tree: e.treeOpts()}); err != nil {
			t.Fatal(err)
		}
		a, b := readTree(t, fromDir), readTree(t, fromS3)
		if len(a) == 0 || len(a) != len(b) {
			t.Fatalf("%d files mirrored from the directory, %d from S3", len(a), len(b))
		}
		for p, data := range a {
			if !bytes.Equal(b[p], data) {
				t.Errorf("%s differs", p)
			}
		}
	})
	t.Run("diff", func(t *testing.T) {
		r, err := diff.Compare(ctx, open(t, dir), open(t, url), diff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Empty() {
			t.Errorf("differences between the tree and its published copy: %+v", r)
		}
	})
	t.Run("path", func(t *testing.T) {
		lc, _ := path.Channels(open(t, dir))
		rc, ok := path.Channels(open(t, url))
		if !ok || len(rc) == 0 || strings.Join(lc, ",") != strings.Join(rc, ",") {
			t.Errorf("channels %v over S3, want %v", rc, lc)
		}
	})
	t.Run("missing", func(t *testing.T) {
		missing := "s3://" + e.srv.NewBucket(t) + "/none"
		if _, err := mirror.OpenSource(ctx, missing, mirror.SourceOptions{Tree: e.treeOpts()}); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("diff of an empty prefix: %v, want not found", err)
		}
	})
}

func readTree(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// syncLog collects log lines for waiting on them.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

const graphQuery = "/graph?channel=fast-4.16&arch=amd64"

func get(t testing.TB, h http.Handler, uri string) (int, string) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + uri)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// serveLocal answers uri from the tree in dir, as `upgraph serve --dir`.
func serveLocal(t testing.TB, dir, uri string) string {
	t.Helper()
	g, err := site.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := site.NewHandler(site.Options{})
	h.SetGeneration(g)
	defer g.Close()
	code, body := get(t, h, uri)
	if code != http.StatusOK {
		t.Fatalf("local %s: %d %s", uri, code, body)
	}
	return body
}

// TestBucketFSFollow serves a published tree as `serve --s3` does and
// follows a new generation, but not a broken one.
func TestBucketFSFollow(t *testing.T) {
	e := newEnv(t)
	dir, bucket, _ := e.published(t)
	logs := &syncLog{}
	fe := e.fork(t)
	h := site.NewHandler(site.Options{})
	tmp := t.TempDir()
	f, err := publish.Follow(t.Context(), h, publish.FollowOptions{
		Client: fe.client, Bucket: bucket, Prefix: prefix, Interval: 20 * time.Millisecond, RetryAfter: 100 * time.Millisecond,
		TempDir: tmp, Logger: slog.New(slog.NewTextHandler(logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			f.Close()
		}
	}()
	answer := func() string {
		code, body := get(t, h, graphQuery)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %s", graphQuery, code, body)
		}
		return body
	}
	if got, want := answer(), serveLocal(t, dir, graphQuery); got != want {
		t.Fatalf("served from S3:\n%s\nwant, as from the tree:\n%s", got, want)
	}
	first := f.ETag()

	// A new generation is picked up within a few polls.
	changed := generate(t, spec{sigs: []string{"sig-a"}, edit: setURL("4.16.1+amd64.json", "https://example.com/changed")})
	want := serveLocal(t, changed, graphQuery)
	if want == answer() {
		t.Fatal("the changed tree answers as the first one: the test changes nothing")
	}
	// The follower has a proxy of its own (fe): between generations it
	// only HEADs index.json, so its GETs from here on are the update's.
	fe.proxy.Reset()
	e.publish(t, e.opts(changed, bucket))
	deadline := time.Now().Add(20 * time.Second)
	for answer() != want {
		if time.Now().After(deadline) {
			t.Fatalf("new generation not served after 20 s; logs:\n%s", logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	second := f.ETag()
	// Only what changed was downloaded; the rest came from the first copy.
	// Compact: a GET retried after a transient error counts once.
	got := slices.DeleteFunc(slices.Compact(treePaths(fe.proxy.Keys(s3test.GET))), func(p string) bool { return p == manifest.FileName })
	wantGets := slices.DeleteFunc(changedPaths(t, dir, changed), func(p string) bool { return p == manifest.FileName })
	if !slices.Equal(got, wantGets) {
		t.Errorf("downloaded %v, want only the changed %v", got, wantGets)
	}
	if second == first || second == "" {
		t.Errorf("ETag %q after %q", second, first)
	}

	// A broken publish (index.json naming a missing object) keeps the
	// served generation.
	m, err := manifest.Read(changed)
	if err != nil {
		t.Fatal(err)
	}
	m.Files["graph/amd64/missing.json"] = manifest.File{SHA256: manifest.SHA256([]byte("{}")), Size: 2}
	m.GeneratedAt = "2026-02-03T04:05:06Z"
	index, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	// Only what is logged from here on is about the broken publish: an
	// earlier read may have failed too (the follower can read an object
	// while the publish above overwrites it, and retries).
	before := len(logs.String())
	e.srv.Put(t, bucket, key(manifest.FileName), index)
	deadline = time.Now().Add(20 * time.Second)
	for !strings.Contains(logs.String()[before:], "new generation not loaded") {
		if time.Now().After(deadline) {
			t.Fatalf("broken generation not tried after 20 s; logs:\n%s", logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(logs.String()[before:], "missing.json") {
		t.Errorf("the error does not name the missing object:\n%s", logs)
	}
	if got := answer(); got != want {
		t.Errorf("after a broken publish:\n%s\nwant the previous generation:\n%s", got, want)
	}
	if f.ETag() != second {
		t.Errorf("ETag %q, want the served generation's %q", f.ETag(), second)
	}

	// Close removes the private cache.
	closed = true
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left in the temporary directory after Close: %v", ents)
	}
}
