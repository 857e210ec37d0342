package sign_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/bundletest"
	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/site/publish"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/s3tree"
	"github.com/upgraph/upgraph/tree/sign"
	"github.com/upgraph/upgraph/tree/writer"
)

var at = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// render generates the demo into out at time at, signed with the key
// directory keys, channels limited to those matching channels (nil: all).
func render(t *testing.T, out, keys string, at time.Time, channels *regexp.Regexp) {
	t.Helper()
	b, err := generator.Build(t.Context(), &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sign.Signer(keys, out, sign.GenerationOptions{At: at})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := generator.Render(t.Context(), b, generator.RenderOptions{Store: writer.DirStore{Dir: out}, GeneratedAt: at, Channels: channels, Sign: s}); err != nil {
		t.Fatal(err)
	}
}

// TestServeTrust: a server verifying signatures (serve --trust) serves a
// signed generation, refuses the next one signed with keys its root does
// not list, counting the refusal by threat, keeps serving the previous
// one, and serves the one after, signed again with the right keys.
func TestServeTrust(t *testing.T) {
	work := t.TempDir()
	keys, other := filepath.Join(work, "keys"), filepath.Join(work, "other")
	for _, k := range []string{keys, other} {
		if _, err := sign.Init(k, sign.InitOptions{At: at}); err != nil {
			t.Fatal(err)
		}
	}
	check := sign.Check{TrustFile: filepath.Join(keys, sign.RootFile), StateFile: filepath.Join(work, "state.json"), Now: at.Add(time.Hour)}
	h := site.NewHandler(site.Options{Trust: func(ctx context.Context, tr tree.Tree) error {
		_, err := check.Verify(ctx, tr, true)
		return err
	}})
	t.Cleanup(func() { h.Close() })
	out := filepath.Join(work, "out")
	render(t, out, keys, at, regexp.MustCompile(`^stable-`))
	if err := h.Watch(t.Context(), out, time.Hour); err != nil {
		t.Fatal(err)
	}
	first := h.Generation().ID
	render(t, out, other, at.Add(time.Minute), nil)
	h.Rescan()
	if h.Generation().ID != first {
		t.Fatal("a generation signed with keys the root does not list is served")
	}
	if m := metricsOf(t, h); !strings.Contains(m, `upgraph_generations_refused_total{reason="wrong-key"} 1`) {
		t.Errorf("the refusal is not counted by its threat:\n%s", m)
	}
	render(t, out, keys, at.Add(2*time.Minute), nil)
	h.Rescan()
	if h.Generation().ID == first {
		t.Error("the next generation, signed with the right keys, is not served")
	}
	if v, err := sign.ReadState(check.StateFile); err != nil || v.Timestamp < 2 {
		t.Errorf("state %+v, %v: not raised to the generation served", v, err)
	}
}

func metricsOf(t *testing.T, h http.Handler) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	return rec.Body.String()
}

// TestPublishSigned publishes signed generations to a real S3 server
// with upgraph publish's order, and fails it where it matters: a reader
// verifying the signatures accepts the old generation or the new one,
// whole, or refuses; never a mix. timestamp.json goes up last, after
// index.json, so a publish stopped in between leaves the old timestamp,
// whose targets refuse the new index.json.
func TestPublishSigned(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "keys")
	if _, err := sign.Init(keys, sign.InitOptions{At: at}); err != nil {
		t.Fatal(err)
	}
	trusted := readFile(t, filepath.Join(keys, sign.RootFile))
	out := filepath.Join(t.TempDir(), "out")
	render(t, out, keys, at, regexp.MustCompile(`^stable-`))
	gen1 := snapshotTree(t, out)
	render(t, out, keys, at.Add(time.Minute), nil)
	gen2 := snapshotTree(t, out)
	index1, index2 := readFile(t, filepath.Join(gen1, manifest.FileName)), readFile(t, filepath.Join(gen2, manifest.FileName))

	srv := s3test.Start(t)
	proxy := s3test.NewProxy(t, srv)
	bucket := srv.NewBucket(t)
	client := srv.ClientFor(proxy.URL)
	opts := tree.Options{S3: s3tree.ClientOptions{Endpoint: srv.URL, PathStyle: true, Credentials: srv.Credentials(), MaxBackoff: 5 * time.Millisecond}}
	publishTree := func(dir string) error {
		_, err := publish.Publish(t.Context(), publish.Options{Dir: dir, Client: client, Bucket: bucket, Prefix: "p", Delete: true, MaxDeletes: -1, Force: true})
		return err
	}
	// verify returns the index.json a verifier accepts, nil if it refuses.
	verify := func(what string) []byte {
		t.Helper()
		tr, err := tree.Open(t.Context(), "s3://"+bucket+"/p", opts)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer tr.Close()
		if _, err := sign.Verify(t.Context(), tr, sign.VerifyOptions{Trusted: trusted, Now: at.Add(time.Hour), Files: true}); err != nil {
			if sign.ThreatOf(err) == "" {
				t.Fatalf("%s: %v, not a refusal", what, err)
			}
			t.Logf("%s: %v", what, err)
			return nil
		}
		return tr.Index()
	}
	if err := publishTree(gen1); err != nil {
		t.Fatal(err)
	}
	if got := verify("gen1 published"); !bytes.Equal(got, index1) {
		t.Fatal("generation 1, published, is not accepted")
	}
	for _, stop := range []struct {
		what, key string
		// accepted is what a verifier may accept once the publish stopped
		// there (nil: it must refuse).
		accepted []byte
	}{
		{"at timestamp.json, after index.json", `tuf/timestamp\.json$`, nil},
		{"at index.json", `/index\.json$`, index1},
	} {
		if err := publishTree(gen1); err != nil {
			t.Fatal(err)
		}
		proxy.Inject(s3test.Fault{Kind: s3test.InternalError, Method: http.MethodPut, Key: stop.key})
		if err := publishTree(gen2); err == nil {
			t.Fatalf("%s: the publish did not fail", stop.what)
		}
		proxy.ClearFaults()
		proxy.Settle()
		got := verify("stopped " + stop.what)
		if got != nil && !bytes.Equal(got, stop.accepted) {
			t.Errorf("stopped %s: accepted an index.json that is not %s", stop.what, map[bool]string{true: "generation 1's", false: "refused"}[stop.accepted != nil])
		}
		if err := publishTree(gen2); err != nil {
			t.Fatal(err)
		}
		if got := verify("published again"); !bytes.Equal(got, index2) {
			t.Errorf("stopped %s, published again: generation 2 not accepted", stop.what)
		}
	}

	// serve --s3 --trust: the follower downloads tuf/ with the files and
	// serves the generation verified.
	check := sign.Check{TrustFile: filepath.Join(keys, sign.RootFile), Now: at.Add(time.Hour)}
	h := site.NewHandler(site.Options{Trust: func(ctx context.Context, tr tree.Tree) error {
		_, err := check.Verify(ctx, tr, true)
		return err
	}})
	f, err := publish.Follow(t.Context(), h, publish.FollowOptions{Client: srv.Client(), Bucket: bucket, Prefix: "p", Interval: time.Hour, TempDir: t.TempDir()})
	if err != nil {
		t.Fatalf("serve --s3 --trust: %v", err)
	}
	if g := h.Generation(); g == nil || g.ID != manifest.Digest(index2) {
		t.Errorf("serve --s3 --trust does not serve generation 2: %v", g)
	}
	h.Close()
	f.Close()
}

func snapshotTree(t *testing.T, dir string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "tree")
	bundletest.CopyTree(t, dir, dst)
	return dst
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
